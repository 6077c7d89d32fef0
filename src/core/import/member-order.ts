/**
 * Per-member ordering: a member has at most one row on its way to the server (in the open batch, queued, in flight
 * or being bisected). Its later rows wait here, in file order, and go one by one as each earlier row settles, so
 * no request holds two rows of one member and rows are applied in file order whatever the concurrency. Other
 * members never wait for them.
 *
 * Memory bound: only members with a row in the pipeline are tracked, plus the rows held back. The pipeline stops
 * reading while `held` is at its limit (maxHeldRows, default 10,000), so a file repeating one memberId 100,000
 * times streams those rows through one at a time instead of buffering them. Members whose row failed are
 * remembered (memberId → record number, a few dozen bytes each) for the rest of the run, because their later rows
 * must fail too wherever they appear in the file.
 *
 * Every row is admitted and settled, so the members on their way are kept in a table of their own (ActiveMembers)
 * rather than a Map: a Map that gains and loses a member per row rebuilt its hash table every few thousand rows
 * (~30 MB of garbage per 200k rows) and cost ~0.5 µs a row in an import (docs/performance.md, CPU per row).
 */
import type { PendingRecord } from './batcher.js';
import { ActiveMembers } from './active-members.js';

export interface FailedEarlier {
  record: number;
  line: number;
}

export type Admission = { kind: 'go' } | { kind: 'held' } | { kind: 'failed-earlier'; earlier: FailedEarlier };

const GO: Admission = { kind: 'go' };
const HELD: Admission = { kind: 'held' };
const NOTHING = { failedRows: [] as PendingRecord[] };

export class MemberOrder {
  /** memberId → its rows waiting behind the one on its way (null: one on its way, none waiting). */
  private readonly active = new ActiveMembers<PendingRecord>();
  private readonly failed = new Map<string, FailedEarlier>();
  private heldRows = 0;

  get held(): number {
    return this.heldRows;
  }

  /** Members with a row on its way. */
  get activeMembers(): number {
    return this.active.size;
  }

  /** Called in file order for each record to send. */
  admit(record: PendingRecord): Admission {
    const earlier = this.failed.size > 0 ? this.failed.get(record.memberId) : undefined;
    if (earlier) return { kind: 'failed-earlier', earlier };
    // null: on its way, nothing waiting (no array per record: this runs for every row of the file)
    const slot = this.active.addOrFind(record.memberId);
    if (slot < 0) return GO;
    const waiting = this.active.waitingAt(slot);
    if (waiting === null) this.active.setWaiting(slot, [record]);
    else waiting.push(record);
    this.heldRows++;
    return HELD;
  }

  /**
   * A member's row on its way settled. Returns the member's next row to send, or, when this row failed, the
   * waiting rows that now fail with it.
   */
  settle(
    record: PendingRecord,
    failed: boolean,
  ): { next?: PendingRecord; failedRows: PendingRecord[]; earlier?: FailedEarlier } {
    const slot = this.active.find(record.memberId);
    if (slot < 0) return { failedRows: [] };
    const waiting = this.active.waitingAt(slot);
    if (failed) {
      const earlier = { record: record.record, line: record.line };
      this.failed.set(record.memberId, earlier);
      this.active.removeAt(slot);
      const failedRows = waiting ?? [];
      this.heldRows -= failedRows.length;
      return { failedRows, earlier };
    }
    const next = waiting?.shift();
    if (next === undefined) {
      this.active.removeAt(slot);
      return NOTHING;
    }
    if (waiting!.length === 0) this.active.setWaiting(slot, null);
    this.heldRows--;
    return { next, failedRows: [] };
  }

  /** The run is stopping: every held row, to be counted failed (in file order). */
  drainHeld(): PendingRecord[] {
    const rows = this.active.takeAllWaiting().flat();
    this.heldRows = 0;
    return rows.sort((a, b) => a.record - b.record);
  }
}
