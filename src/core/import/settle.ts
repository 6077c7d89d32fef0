/**
 * Ending records: one place that puts a sent record in its bucket, tells the hooks, and releases the member's
 * next row. Every path that ends a record (response, bisect, 413, failure, stop) comes through here, which is
 * what keeps "each record settled exactly once" easy to check.
 */
import type { PendingRecord } from './batcher.js';
import { itemJson } from './item-bytes.js';
import type { MemberOrder } from './member-order.js';
import type { Tally } from './tally.js';
import type { ImportHooks, SettledBatch, SettledRecord } from './types.js';

interface AnsweredBatch {
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
  /** onSettled calls not resolved yet (a journal's entries not yet on disk): sending waits while there are many. */
  readonly unsynced: number;
  /** Resolves once every onSettled call made so far resolved; rejects with the first that failed. */
  synced(): Promise<void>;
}

export interface SettlerLinks {
  /** Called with a member's next row, released because the row before it settled (not failed). */
  release(record: PendingRecord): void;
  /** An onSettled call resolved: `unsynced` went down. */
  onSynced(): void;
  /** An onSettled call failed: the run stops. */
  onHookFailed(error: unknown): void;
}

export function createSettler(tally: Tally, order: MemberOrder, hooks: ImportHooks, links: SettlerLinks): Settler {
  // Responses are counted one at a time, in the order they were answered (the hook is called in that order too).
  let queue: Promise<void> = Promise.resolve();
  const serial = (work: () => Promise<void>): Promise<void> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function failWithMember(record: PendingRecord, reason: string, countAs: string): Promise<void> {
    await tally.reject(record, 'failed', reason, countAs);
    const { failedRows, earlier } = order.settle(record, true);
    for (const row of failedRows) {
      await tally.reject(row, 'failed', laterRowReason(earlier!), LATER_ROW_COUNT_AS);
    }
  }

  function callHook(batch: AnsweredBatch): Promise<void> {
    if (!hooks.onSettled) return Promise.resolve();
    const records: SettledRecord[] = [
      ...batch.confirmed.map((r) => settled(r, 'confirmed')),
      ...batch.skipped.map(({ record, reason }) => settled(record, 'skipped', reason)),
      ...batch.rejected.map(({ record, reason }) => settled(record, 'rejected', reason)),
    ].sort((a, b) => a.record - b.record);
    if (records.length === 0) return Promise.resolve();
    const settledBatch: SettledBatch = {
      firstRecord: records[0]!.record,
      lastRecord: records[records.length - 1]!.record,
      importedCount: batch.importedCount,
      updatedCount: batch.updatedCount,
      records,
    };
    try {
      return Promise.resolve(hooks.onSettled(settledBatch));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // onSettled calls not resolved yet, and the first failure among them
  const pending = new Set<Promise<void>>();
  let hookFailure: { error: unknown } | undefined;
  function track(call: Promise<void>): void {
    const tracked = call.then(
      () => undefined,
      (error: unknown) => {
        hookFailure ??= { error };
        links.onHookFailed(error);
      },
    );
    pending.add(tracked);
    void tracked.then(() => {
      pending.delete(tracked);
      links.onSynced();
    });
  }

  return {
    get unsynced() {
      return pending.size;
    },
    async synced() {
      while (pending.size > 0) await Promise.all(pending);
      if (hookFailure) throw hookFailure.error;
    },
    settleAnswered: (batch) => {
      // The hook is called at once, in response order, and not awaited: the records count and their members'
      // next rows go right away. Waiting for a journal's fsync before that was costly (docs/performance.md), and it
      // is not what keeps a resume right: the journal writes entries in call order and each sync covers every earlier
      // write, so after a crash it holds a prefix of the responses, and never a member's later row without the
      // earlier one. Calls still overlap (a journal syncs the entries of every response that arrived during one
      // fdatasync together); the pipeline finishes only after all resolved, and sends nothing new while
      // 2 × concurrency responses are answered but not yet synced (dispatcher.ts), which bounds the memory.
      track(callHook(batch));
      return serial(async () => {
        tally.confirm(batch.importedCount, batch.updatedCount);
        for (const { record, reason } of batch.skipped) await tally.reject(record, 'skipped', reason);
        for (const { record, reason, countAs } of batch.rejected) await tally.reject(record, 'rejected', reason, countAs);
        const done = [...batch.confirmed, ...batch.skipped.map((s) => s.record), ...batch.rejected.map((s) => s.record)];
        for (const record of done) {
          const { next } = order.settle(record, false);
          if (next) links.release(next);
        }
      });
    },
    settleFailed: (records, reason, countAs) =>
      serial(async () => {
        for (const record of records) await failWithMember(record, reason, countAs);
      }),
  };
}

/** `json` is decoded from the record's bytes only if a hook reads it (the journal does not; the sync state does). */
class Settled implements SettledRecord {
  readonly record: number;
  readonly line: number;
  readonly memberId: string;
  constructor(
    private readonly pending: PendingRecord,
    readonly outcome: SettledRecord['outcome'],
    readonly reason?: string,
  ) {
    this.record = pending.record;
    this.line = pending.line;
    this.memberId = pending.memberId;
  }

  get json(): string {
    return itemJson(this.pending);
  }
}

function settled(record: PendingRecord, outcome: SettledRecord['outcome'], reason?: string): SettledRecord {
  return new Settled(record, outcome, reason);
}

export const LATER_ROW_COUNT_AS = 'not sent: an earlier row of the same member failed';

export function laterRowReason(earlier: { record: number; line: number }): string {
  return `not sent: earlier record ${earlier.record} (line ${earlier.line}) of this member failed; re-run to apply both in order`;
}
