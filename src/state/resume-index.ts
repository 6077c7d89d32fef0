/**
 * What --resume needs from a journal: for each record number, whether an earlier run settled it and how. One
 * byte per record (a 10M-row file costs 10 MB), reasons only for the few skipped and rejected ones.
 *
 * The server says how many records of a response it imported and how many it updated, not which: the first
 * `imp` confirmed records of an entry (in record order) are restored as imported, the others as updated, so the
 * resumed summary's counts are exactly the server's.
 */
import { forEachInRanges, type JournalEntry } from './journal-format.js';

export type RestoredOutcome = 'imported' | 'updated' | 'skipped' | 'rejected';

const CODES: readonly (RestoredOutcome | undefined)[] = [undefined, 'imported', 'updated', 'skipped', 'rejected'];
const CODE: Record<RestoredOutcome, number> = { imported: 1, updated: 2, skipped: 3, rejected: 4 };

export class ResumeIndex {
  private outcomes = new Uint8Array(1024);
  private readonly reasons = new Map<number, string>();
  readonly counts: Record<RestoredOutcome, number> = { imported: 0, updated: 0, skipped: 0, rejected: 0 };
  /** Runs recorded in the journal so far. */
  runs = 0;

  static fromEntries(entries: readonly JournalEntry[]): ResumeIndex {
    const index = new ResumeIndex();
    for (const entry of entries) {
      if (entry.t === 'run') {
        index.runs = Math.max(index.runs, entry.n);
        continue;
      }
      const ok: number[] = [];
      forEachInRanges(entry.ok, (record) => ok.push(record));
      ok.forEach((record, i) => index.set(record, i < entry.imp ? 'imported' : 'updated'));
      for (const [record, reason] of entry.skip) index.set(record, 'skipped', reason);
      for (const [record, reason] of entry.rej) index.set(record, 'rejected', reason);
    }
    return index;
  }

  /** Records settled by earlier runs. */
  get settled(): number {
    return this.counts.imported + this.counts.updated + this.counts.skipped + this.counts.rejected;
  }

  get(record: number): { outcome: RestoredOutcome; reason?: string } | undefined {
    const outcome = CODES[record < this.outcomes.length ? this.outcomes[record]! : 0];
    if (outcome === undefined) return undefined;
    const reason = this.reasons.get(record);
    return reason === undefined ? { outcome } : { outcome, reason };
  }

  private set(record: number, outcome: RestoredOutcome, reason?: string): void {
    if (record >= this.outcomes.length) {
      let length = this.outcomes.length;
      while (length <= record) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.outcomes);
      this.outcomes = grown;
    }
    const before = CODES[this.outcomes[record]!];
    if (before !== undefined) this.counts[before]--; // settled twice (should not happen): the later entry wins
    this.outcomes[record] = CODE[outcome];
    this.counts[outcome]++;
    if (reason !== undefined) this.reasons.set(record, reason);
    else this.reasons.delete(record);
  }
}
