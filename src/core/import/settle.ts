/**
 * The contract between the sender and the Ledger (ledger.ts): how answered and failed records are handed over,
 * and what a settled record looks like to the hooks.
 */
import type { PendingRecord } from './batcher.js';
import { itemJson } from './item-bytes.js';
import type { SettledRecord } from './types.js';

export interface AnsweredBatch {
  confirmed: PendingRecord[];
  importedCount: number;
  updatedCount: number;
  skipped: { record: PendingRecord; reason: string }[];
  rejected: { record: PendingRecord; reason: string; countAs: string }[];
}

export interface Settler {
  /** Records the server answered for: counted, their members' next rows released, the onSettled hook called. */
  settleAnswered(batch: AnsweredBatch): Promise<void>;
  /** Records not confirmed. Their members' later rows, held or still to come, fail too. */
  settleFailed(records: readonly PendingRecord[], reason: string, countAs: string): Promise<void>;
  /** Resolves once every onSettled call made so far resolved; rejects with the first that failed. */
  synced(): Promise<void>;
}

export interface SettlerLinks {
  /** Called with a member's next row, released because the row before it settled (not failed). */
  release(record: PendingRecord): void;
  /** An onSettled call resolved: the Ledger's `unsynced` went down (the flow gate may let a request go). */
  onSynced(): void;
  /** An onSettled call failed: the run stops. */
  onHookFailed(error: unknown): void;
}

/**
 * A view of the pending record, one per record answered (three fields, not a copy of the record's): `json` is
 * decoded from the record's bytes only if a hook reads it (the journal does not; the sync state does).
 */
class Settled implements SettledRecord {
  constructor(
    private readonly pending: PendingRecord,
    readonly outcome: SettledRecord['outcome'],
    readonly reason?: string,
  ) {}

  get record(): number {
    return this.pending.record;
  }

  get line(): number {
    return this.pending.line;
  }

  get memberId(): string {
    return this.pending.memberId;
  }

  get json(): string {
    return itemJson(this.pending);
  }
}

export function settledRecord(
  record: PendingRecord,
  outcome: SettledRecord['outcome'],
  reason?: string,
): SettledRecord {
  return new Settled(record, outcome, reason);
}

export const LATER_ROW_COUNT_AS = 'not sent: an earlier row of the same member failed';

export function laterRowReason(earlier: { record: number; line: number }): string {
  return `not sent: earlier record ${earlier.record} (line ${earlier.line}) of this member failed; re-run to apply both in order`;
}
