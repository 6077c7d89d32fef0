/**
 * Counts invalid records by reason ("email: longer than 256 characters") in bounded memory: rules carry no
 * record values, so the set of reasons stays small; past a cap, new reasons are counted together as "other".
 */
import type { RecordIssue } from './candidate.js';

export interface ReasonCount {
  reason: string;
  count: number;
}

const MAX_DISTINCT = 1000;
const OTHER = 'other reasons';

export class ReasonCounter {
  private readonly counts = new Map<string, number>();

  /** One count per distinct reason in the record (a record with two issues counts under both). */
  add(issues: readonly RecordIssue[]): void {
    for (const issue of issues) {
      const rule = issue.rule ?? issue.message;
      let key = issue.path ? `${topPath(issue.path)}: ${rule}` : rule;
      if (!this.counts.has(key) && this.counts.size >= MAX_DISTINCT) key = OTHER;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
  }

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
