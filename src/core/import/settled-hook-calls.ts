/**
 * The Ledger's calls of the onSettled hook (ledger.ts, whose header states the journal-ordering rule they keep):
 * each answered batch becomes one SettledBatch in record order, the hook is called with it at once and not awaited,
 * and the calls not resolved yet are tracked, so that the flow gate can see how many there are and the run can wait
 * for all of them, and learn of the first that failed, before its summary.
 */
import { type AnsweredBatch, type SettlerLinks, settledRecord } from './settle.js';
import type { ImportHooks, SettledBatch, SettledRecord } from './types.js';

export class SettledHookCalls {
  /** onSettled calls not resolved yet, and the first failure among them. */
  readonly #pending = new Set<Promise<void>>();
  #failure: { error: unknown } | undefined;

  constructor(
    private readonly hooks: ImportHooks,
    private readonly links: SettlerLinks,
  ) {}

  /** Calls not resolved yet (a journal's entries not yet on disk). */
  get unresolved(): number {
    return this.#pending.size;
  }

  /** Resolves when every call made so far (and any made meanwhile) has; throws the first failure. */
  async allResolved(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
    if (this.#failure) throw this.#failure.error;
  }

  /** Calls the hook with the batch's answered records now, not awaited: links.onSynced or onHookFailed tell. */
  call(batch: AnsweredBatch): void {
    this.#track(this.#call(batch));
  }

  #call(batch: AnsweredBatch): Promise<void> {
    if (!this.hooks.onSettled) return Promise.resolve();
    // (map first: an array of the batch's size at once, not grown by push)
    const records = batch.confirmed.map((r) => settledRecord(r, 'confirmed'));
    for (const { record, reason } of batch.skipped) records.push(settledRecord(record, 'skipped', reason));
    for (const { record, reason } of batch.rejected) records.push(settledRecord(record, 'rejected', reason));
    if (records.length === 0) return Promise.resolve();
    // in record order: a batch mostly is already (its rows were read in order), and a sort copies the array
    if (!inRecordOrder(records)) records.sort((a, b) => a.record - b.record);
    const { importedCount, updatedCount } = batch;
    const settledBatch: SettledBatch = {
      firstRecord: records[0]!.record,
      lastRecord: records[records.length - 1]!.record,
      importedCount,
      updatedCount,
      records,
    };
    try {
      return Promise.resolve(this.hooks.onSettled(settledBatch));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #track(call: Promise<void>): void {
    const tracked = call.then(
      () => undefined,
      (error: unknown) => {
        this.#failure ??= { error };
        this.links.onHookFailed(error);
      },
    );
    this.#pending.add(tracked);
    void tracked.then(() => {
      this.#pending.delete(tracked);
      this.links.onSynced();
    });
  }
}

function inRecordOrder(records: readonly SettledRecord[]): boolean {
  for (let i = 1; i < records.length; i++) if (records[i - 1]!.record > records[i]!.record) return false;
  return true;
}
