/**
 * The accounting: every record counted read lands in exactly one bucket, and every record not imported or updated
 * goes to the rejects file with its stage and reason. The summary is built from here only, so the invariant
 *   rows = invalid + unchanged + importedCount + updatedCount + skipped + rejected + failed
 * holds by construction as long as each record is settled once (the tests check it under faults).
 */
import type { RecordIssue } from '../candidate.js';
import { ReasonCounter } from '../reason-counter.js';
import type { ImportSummary, RejectsSink, Stage } from './types.js';

export interface RecordInfo {
  record: number;
  line: number;
  memberId?: string;
  raw: unknown;
}

export class Tally {
  rows = 0;
  invalid = 0;
  unchanged = 0;
  importedCount = 0;
  updatedCount = 0;
  rejected = 0;
  failed = 0;
  warnings = 0;
  readonly skipped: ImportSummary['skipped'] = [];
  /** Invalid records count per issue, as validate counts them, so both commands show the same reasons. */
  private readonly invalidReasons = new ReasonCounter();
  private readonly reasons: Record<Exclude<Stage, 'invalid'>, ReasonCounter> = {
    skipped: new ReasonCounter(),
    rejected: new ReasonCounter(),
    failed: new ReasonCounter(),
  };

  constructor(private readonly rejects?: RejectsSink) {}

  /** Records with a final outcome. */
  get settled(): number {
    return this.invalid + this.unchanged + this.importedCount + this.updatedCount + this.skipped.length + this.rejected + this.failed;
  }

  /** Records the server answered for (imported, updated or skipped). */
  get confirmed(): number {
    return this.importedCount + this.updatedCount + this.skipped.length;
  }

  /**
   * Counts a record in a rejects stage. `countAs` separates the reason shown in the rejects file (specific) from
   * the one counted for "most common reasons" (free of member values).
   */
  reject(info: RecordInfo, stage: Exclude<Stage, 'invalid'>, reason: string, countAs: string = reason): Promise<void> | void {
    switch (stage) {
      case 'skipped':
        this.skipped.push({ memberId: info.memberId ?? null, reason, record: info.record, line: info.line });
        break;
      case 'rejected':
        this.rejected++;
        break;
      case 'failed':
        this.failed++;
        break;
    }
    this.reasons[stage].add(countAs);
    return this.write(info, stage, reason);
  }

  invalidRecord(info: RecordInfo, issues: readonly RecordIssue[], reason: string): Promise<void> | void {
    this.invalid++;
    this.invalidReasons.addIssues(issues);
    return this.write(info, 'invalid', reason);
  }

  private write(info: RecordInfo, stage: Stage, reason: string): Promise<void> | void {
    return this.rejects?.write({ record: info.record, line: info.line, memberId: info.memberId, stage, reason, input: info.raw });
  }

  confirm(importedCount: number, updatedCount: number): void {
    this.importedCount += importedCount;
    this.updatedCount += updatedCount;
  }

  topReasons(): ImportSummary['topReasons'] {
    return {
      invalid: this.invalidReasons.top(5),
      skipped: this.reasons.skipped.top(5),
      rejected: this.reasons.rejected.top(5),
      failed: this.reasons.failed.top(5),
    };
  }
}
