/**
 * The cells `"onInvalid": "omit"` left out (issue 24 item 5), counted by field over the valid records a run takes:
 * validate's and import's summaries say "phone: 69 cells not sent", and --json gives `omittedCells` by field with
 * the first lines and the first reason, so that every such cell can be found (the records themselves were sent,
 * so they are not in the rejects file).
 */
import type { Candidate } from './candidate.js';

/** Lines named per field. */
const FIRST_LINES = 5;

export interface OmittedField {
  /** Cells left out of the records taken. */
  cells: number;
  /** The lines of the first of them. */
  lines: number[];
  /** What was wrong with the first one (the cell quoted short). */
  firstReason: string;
}

/** By field path, in the order the fields were first left out. */
export type OmittedCellsReport = Record<string, OmittedField>;

export class OmittedCells {
  readonly #byField = new Map<string, OmittedField>();

  /** One valid record taken (sent, or written by validate --output). */
  add(candidate: Candidate & { valid: true }): void {
    if (!candidate.omitted) return;
    for (const issue of candidate.omitted) {
      const field = this.#byField.get(issue.path);
      if (!field) this.#byField.set(issue.path, { cells: 1, lines: [candidate.line], firstReason: issue.message });
      else {
        field.cells++;
        if (field.lines.length < FIRST_LINES) field.lines.push(candidate.line);
      }
    }
  }

  report(): OmittedCellsReport {
    // fromEntries defines own properties: a field named "__proto__" stays data
    return Object.fromEntries([...this.#byField].map(([path, field]) => [path, { ...field, lines: [...field.lines] }]));
  }
}
