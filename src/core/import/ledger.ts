/**
 * The books of an import, and the only writer of its buckets: every record counted read ends in exactly one of
 * invalid, unchanged, imported/updated, skipped, rejected or failed, and every record not imported or updated goes
 * to the rejects file with its stage and reason. The reader counts what it reads here; the sender settles what the
 * server answered here. So the invariant
 *   rows = invalid + unchanged + importedCount + updatedCount + skipped + rejected + failed
 * holds by construction as long as each record is settled once (test/core/ledger.test.ts checks it against a model).
 *
 * Settling a sent record also tells the hooks (a journal, a sync state; settled-hook-calls.ts makes the calls) and
 * releases the member's next row: every path that ends a sent record (response, bisect, 413, failure, stop) comes
 * through `settleAnswered` or `settleFailed`.
 *
 * The journal-ordering rule (stated here once; the other places link to it). What keeps a resume exact is the
 * order of the onSettled calls, not waiting for them:
 * - `settleAnswered` calls the hook once per response, at once, in the order the responses are accounted, and only
 *   after that call releases its members' next rows: a member's later row is sent only after the call carrying its
 *   earlier row was made.
 * - A hook that needs order keeps it by acting in call order. The journal (src/state/journal.ts) appends its
 *   entries in call order, they reach the disk in that order, and each fdatasync covers every earlier write.
 * - So after a kill -9 or a power cut the journal holds a prefix of the responses, and never a member's later row
 *   without its earlier one: a resume sends what is missing, each member's rows still in file order (a row sent
 *   again was in flight, not journaled: the import is an upsert, so applying it twice is applying it once).
 * - The call is not awaited, neither before the records count and their members' next rows go, nor by the next
 *   call (so one fdatasync covers the responses answered during the one before): waiting cost ~15% of throughput
 *   (docs/performance.md). The run ends, and its summary is printed, only after every call resolved (`synced`); a
 *   call that fails stops the run. Meanwhile the flow gate bounds the calls not yet resolved (flow-gate.ts).
 */
import type { RecordIssue } from '../candidate.js';
import { ReasonCounter, TOP_REASONS } from '../reason-counter.js';
import type { PendingRecord } from './batcher.js';
import type { MemberOrder } from './member-order.js';
import { SettledHookCalls } from './settled-hook-calls.js';
import { LATER_ROW_COUNT_AS, laterRowReason, type AnsweredBatch, type Settler, type SettlerLinks } from './settle.js';
import {
  SKIPPED_EXAMPLES,
  type ImportHooks,
  type ImportSummary,
  type RejectsSink,
  type SkippedExample,
  type Stage,
} from './types.js';
import { shortened } from '../mapping/quote-cell.js';

export interface RecordInfo {
  record: number;
  line: number;
  memberId?: string;
  raw: unknown;
}

/** What the summary takes from the books. */
export type Books = Pick<
  ImportSummary,
  | 'rows'
  | 'invalid'
  | 'unchanged'
  | 'importedCount'
  | 'updatedCount'
  | 'skipped'
  | 'skippedExamples'
  | 'rejected'
  | 'failed'
  | 'topReasons'
  | 'paddedRows'
>;

type SentStage = Exclude<Stage, 'invalid'>;

export class Ledger implements Settler {
  readonly #counts = {
    rows: 0,
    invalid: 0,
    unchanged: 0,
    importedCount: 0,
    updatedCount: 0,
    skipped: 0,
    rejected: 0,
    failed: 0,
  };
  readonly #skippedExamples: SkippedExample[] = [];
  /** Rows --pad-short-rows completed (counted among the rows, in whatever bucket they end). */
  #paddedRows = 0;
  /** Invalid records count per issue, as validate counts them, so both commands show the same reasons. */
  readonly #invalidReasons = new ReasonCounter();
  readonly #reasons: Record<SentStage, ReasonCounter> = {
    skipped: new ReasonCounter(),
    rejected: new ReasonCounter(),
    failed: new ReasonCounter(),
  };
  /** Responses are counted one at a time, in the order they were answered (the hook is called in that order too). */
  #queue: Promise<void> = Promise.resolve();
  readonly #hookCalls: SettledHookCalls;

  constructor(
    private readonly order: MemberOrder,
    hooks: ImportHooks,
    private readonly links: SettlerLinks,
    private readonly rejects?: RejectsSink,
  ) {
    this.#hookCalls = new SettledHookCalls(hooks, links);
  }

  // ---- what the reader counts

  /** A record read and counted (after --limit and --shard); `padded`: a row --pad-short-rows completed. */
  read(padded = false): void {
    this.#counts.rows++;
    if (padded) this.#paddedRows++;
  }

  /** With --changed-only: the same as last confirmed, not sent. */
  unchanged(): void {
    this.#counts.unchanged++;
  }

  invalid(info: RecordInfo, issues: readonly RecordIssue[], reason: string): Promise<void> | void {
    this.#counts.invalid++;
    this.#invalidReasons.addIssues(issues);
    return this.#write(info, 'invalid', reason);
  }

  /** --resume: a record an earlier run settled for good, counted as it ended then and not sent again. */
  settledEarlier(
    info: RecordInfo,
    outcome: 'imported' | 'updated' | 'skipped' | 'rejected',
    reason?: string,
  ): Promise<void> | void {
    if (outcome === 'imported') return void this.#counts.importedCount++;
    if (outcome === 'updated') return void this.#counts.updatedCount++;
    return this.#reject(info, outcome, reason ?? `${outcome} in an earlier run`);
  }

  /** A later row of a member whose earlier row failed: never sent. */
  failedWithEarlier(record: RecordInfo, earlier: { record: number; line: number }): Promise<void> | void {
    return this.#reject(record, 'failed', laterRowReason(earlier), LATER_ROW_COUNT_AS);
  }

  // ---- what the sender settles (Settler)

  /** onSettled calls not resolved yet (a journal's entries not yet on disk): the flow gate reads it. */
  get unsynced(): number {
    return this.#hookCalls.unresolved;
  }

  /** Every onSettled call resolved; throws the first that failed. */
  synced(): Promise<void> {
    return this.#hookCalls.allResolved();
  }

  settleAnswered(batch: AnsweredBatch): Promise<void> {
    // called now, not awaited, before the members' next rows are released: the journal-ordering rule (above)
    this.#hookCalls.call(batch);
    return this.#serial(async () => {
      this.#counts.importedCount += batch.importedCount;
      this.#counts.updatedCount += batch.updatedCount;
      for (const { record, reason } of batch.skipped) await this.#reject(record, 'skipped', reason);
      for (const { record, reason, countAs } of batch.rejected) await this.#reject(record, 'rejected', reason, countAs);
      for (const record of batch.confirmed) this.#settled(record);
      for (const { record } of batch.skipped) this.#settled(record);
      for (const { record } of batch.rejected) this.#settled(record);
    });
  }

  /** A sent record answered for: its member's next row goes. */
  #settled(record: PendingRecord): void {
    const { next } = this.order.settle(record, false);
    if (next) this.links.release(next);
  }

  /** Records not confirmed. Their members' later rows, held or still to come, fail too. */
  settleFailed(records: readonly PendingRecord[], reason: string, countAs: string): Promise<void> {
    return this.#serial(async () => {
      for (const record of records) {
        await this.#reject(record, 'failed', reason, countAs);
        const { failedRows, earlier } = this.order.settle(record, true);
        for (const row of failedRows) await this.failedWithEarlier(row, earlier!);
      }
    });
  }

  // ---- reading the books

  get rows(): number {
    return this.#counts.rows;
  }

  /** Records with a final outcome. */
  get settled(): number {
    const c = this.#counts;
    return c.invalid + c.unchanged + c.importedCount + c.updatedCount + c.skipped + c.rejected + c.failed;
  }

  /** Records the server answered for (imported, updated or skipped). */
  get confirmed(): number {
    return this.#counts.importedCount + this.#counts.updatedCount + this.#counts.skipped;
  }

  books(): Books {
    const topReasons = {
      invalid: this.#invalidReasons.top(TOP_REASONS),
      skipped: this.#reasons.skipped.top(TOP_REASONS),
      rejected: this.#reasons.rejected.top(TOP_REASONS),
      failed: this.#reasons.failed.top(TOP_REASONS),
    };
    const { rows, invalid, unchanged, importedCount, updatedCount, skipped, rejected, failed } = this.#counts;
    return {
      rows,
      invalid,
      unchanged,
      importedCount,
      updatedCount,
      skipped,
      skippedExamples: this.#skippedExamples,
      rejected,
      failed,
      topReasons,
      paddedRows: this.#paddedRows,
    };
  }

  // ---- inside

  /**
   * Counts a record in a rejects stage. `countAs` separates the reason shown in the rejects file (specific) from
   * the one counted for "most common reasons" (free of member values).
   */
  #reject(info: RecordInfo, stage: SentStage, reason: string, countAs: string = reason): Promise<void> | void {
    this.#counts[stage]++;
    if (stage === 'skipped' && this.#skippedExamples.length < SKIPPED_EXAMPLES)
      this.#skippedExamples.push({ memberId: info.memberId ?? null, reason, record: info.record, line: info.line });
    this.#reasons[stage].add(countAs);
    return this.#write(info, stage, reason);
  }

  #write(info: RecordInfo, stage: Stage, reason: string): Promise<void> | void {
    return this.rejects?.write({
      record: info.record,
      line: info.line,
      memberId: info.memberId === undefined ? undefined : shortened(info.memberId),
      stage,
      reason,
      input: info.raw,
    });
  }

  #serial(work: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
