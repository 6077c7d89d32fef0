/**
 * Duplicate memberIds (issue 24 item 4): a memberId on more than one row of the input. A repeat whose row is the
 * same as its memberId's first row stores nothing new and is only counted; one with other content would overwrite
 * the first row's values on the server. By default the last row in file order wins (member-order.ts sends a
 * member's rows in file order) and the run reports the memberIds it found; `--duplicates refuse` makes every later
 * row that differs from its memberId's first row invalid ("memberId "X" also on line N"), as a migration wants.
 *
 * Rows are compared as read (a CSV row's cells, a JSON record's text), valid or not, so the verdicts do not depend
 * on --changed-only finding a row unchanged before it is mapped, nor on --resume restoring it from the journal:
 * a resumed run or a shard reaches the verdicts a whole run reaches. Memory: MemberTable's ~20 bytes per memberId,
 * the one part of a run that grows with the file; `--duplicates off` keeps no table (for a file of many millions of
 * members in a small pod, or shards run one process each).
 */
import type { Candidate, RecordIssue } from '../candidate.js';
import { contentHash, idHash, idHashHigh } from './member-hash.js';
import { MemberTable, Seen } from './member-table.js';

/** --duplicates: what a later row of a memberId with other content does. */
export const DUPLICATE_RULES = ['last-wins', 'refuse', 'off'] as const;
export type DuplicateRule = (typeof DUPLICATE_RULES)[number];

/** The memberIds named in reports, and the lines named for each. */
const SAMPLE_MEMBERS = 5;
const SAMPLE_LINES = 5;
const ID_IN_MESSAGE = 80;

export interface DuplicateMembersReport {
  rule: DuplicateRule;
  /** memberIds on two or more rows with different content. */
  count: number;
  /** The first of them: each memberId's first line, then the lines that differ from it (at most 5 in all). */
  sample: { memberId: string; lines: number[] }[];
  /** Later rows that differ from their memberId's first row (each one refused under `refuse`). */
  laterRows: number;
  /** Later rows the same as their memberId's first row: harmless, counted only. */
  identicalRows: number;
}

/** The part of a record the check reads: where it is, and what it holds as read. */
export interface RecordAsRead {
  line: number;
  raw: unknown;
}

export class DuplicateMembers {
  readonly #table = new MemberTable();
  readonly #sample: DuplicateMembersReport['sample'] = [];
  #count = 0;
  #laterRows = 0;
  #identicalRows = 0;

  constructor(readonly rule: DuplicateRule = 'last-wins') {}

  /**
   * One mapped record (valid or not), in input order. Returns the candidate as it is, or, under `refuse`, a later
   * row with other content made invalid.
   */
  check(record: RecordAsRead, candidate: Candidate): Candidate {
    const memberId = candidate.valid ? candidate.item.memberId : candidate.memberId;
    const firstLine = this.observe(record, memberId);
    return firstLine === 0 ? candidate : refused(candidate, firstLine);
  }

  /**
   * One record of `memberId` (undefined or blank: not checked). Returns the memberId's first line when `refuse`
   * makes this row invalid, else 0. For rows settled without mapping (--changed-only's unchanged rows).
   */
  observe(record: RecordAsRead, memberId: string | undefined): number {
    if (this.rule === 'off' || memberId === undefined || memberId.trim() === '') return 0;
    const low = idHash(memberId);
    return this.observeHashed(memberId, low, idHashHigh, contentHash(record.raw), record.line);
  }

  /**
   * `observe` of a row whose hashes were computed where its cells are (the CSV worker: import/row-encoder.ts), as
   * observe computes them: `low` and `high` of idHash(memberId), contentHash of the cells. memberId is not blank.
   */
  observeHashed(memberId: string, low: number, high: number, content: number, line: number): number {
    if (this.rule === 'off') return 0;
    const seen = this.#table.observe(high, low, content, line);
    if (seen === Seen.first) return 0;
    if (seen === Seen.same) {
      this.#identicalRows++;
      return 0;
    }
    this.#laterRows++;
    if (seen === Seen.differs) this.#count++;
    this.#noteInSample(memberId, this.#table.firstLine, line, seen);
    return this.rule === 'refuse' ? this.#table.firstLine : 0;
  }

  #noteInSample(memberId: string, firstLine: number, line: number, seen: Seen): void {
    // (a sampled memberId is matched by its string: the table's hash could in theory match another id)
    if (seen === Seen.differs && this.#sample.length < SAMPLE_MEMBERS) {
      this.#sample.push({ memberId, lines: [firstLine, line] });
      return;
    }
    const entry = this.#sample.find((sampled) => sampled.memberId === memberId);
    if (entry && entry.lines.length < SAMPLE_LINES) entry.lines.push(line);
  }

  report(): DuplicateMembersReport {
    return {
      rule: this.rule,
      count: this.#count,
      sample: this.#sample.map(({ memberId, lines }) => ({ memberId, lines: [...lines] })),
      laterRows: this.#laterRows,
      identicalRows: this.#identicalRows,
    };
  }
}

/** A later row `refuse` makes invalid: the refusal first, then whatever else was wrong with it. */
export function refused(candidate: Candidate, firstLine: number): Candidate {
  const memberId = candidate.valid ? candidate.item.memberId : candidate.memberId;
  const issue = refusal(memberId ?? '', firstLine);
  const { record, line, raw } = candidate;
  const issues = candidate.valid ? [issue] : [issue, ...candidate.issues];
  return { record, line, raw, memberId, valid: false, issues };
}

/** The issue of a refused later row: path-less, so the reasons table groups them under one rule. */
function refusal(memberId: string, firstLine: number): RecordIssue {
  const shown = memberId.length > ID_IN_MESSAGE ? `${memberId.slice(0, ID_IN_MESSAGE - 1)}…` : memberId;
  return {
    path: '',
    message: `memberId ${JSON.stringify(shown)} also on line ${firstLine}, with other content (--duplicates refuse)`,
    rule: 'memberId also on an earlier line, with other content',
  };
}
