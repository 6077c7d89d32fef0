/**
 * Counts records by reason ("email: longer than 256 characters", "not confirmed: HTTP 503") in bounded memory:
 * reasons carry no record values, so their set stays small; past a cap, new reasons are counted together as
 * "(other reasons)". validate and every import stage count with this one class, so both show the same reasons.
 */
import type { RecordIssue } from './candidate.js';

export interface ReasonCount {
  reason: string;
  count: number;
}

const MAX_DISTINCT = 1000;
/**
 * How many reasons a summary lists, per stage: one number for validate and import, so a reason validate showed is
 * never missing from the import of the same file (an "unreadable record" seen once).
 */
export const TOP_REASONS = 10;
export const OTHER_REASONS = '(other reasons)';

export class ReasonCounter {
  private readonly counts = new Map<string, number>();

  add(reason: string): void {
    const key = this.counts.has(reason) || this.counts.size < MAX_DISTINCT ? reason : OTHER_REASONS;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** An invalid record: one count per issue (a record with two issues counts under both). */
  addIssues(issues: readonly RecordIssue[]): void {
    for (const issue of issues) {
      const rule = issue.rule ?? issue.message;
      this.add(issue.path ? `${topPath(issue.path)}: ${rule}` : rule);
    }
  }

  /** Most frequent first; equal counts by name, so the order does not depend on which came first. */
  top(n: number): ReasonCount[] {
    return [...this.counts]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, n);
  }
}

/** metadata and customProperties keys are data; grouping by them could grow without bound. */
function topPath(path: string): string {
  return path.startsWith('metadata.') || path.startsWith('customProperties.') ? `${path.split('.', 1)[0]}.<key>` : path;
}
