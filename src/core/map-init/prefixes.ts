/**
 * Shopify (and other exports meant for spreadsheets) write an apostrophe before numbers ('6512345678901, '+1 555…,
 * '78701) so that a spreadsheet keeps them as text. The mapping language has no rule that strips a prefix, so the
 * apostrophe would be sent as part of the value: map init asks, naming the column and showing its cells.
 */
import type { Proposal } from './decide.js';
import type { Decision } from './required.js';
import { samplesOf } from './samples.js';

/** An apostrophe that starts a cell, before its value (never "'" alone, nor a quoted word 'like this'). */
const LEADING_APOSTROPHE = /^'[^'\s]/;

export function apostropheDecisions(proposals: readonly Proposal[]): Decision[] {
  return proposals.flatMap((p): Decision[] => {
    if (p.field === null || p.cells.length === 0) return [];
    const marked = p.cells.filter((c) => LEADING_APOSTROPHE.test(c) && !c.endsWith("'"));
    if (marked.length < p.cells.length / 2) return [];
    return [
      {
        key: p.column,
        field: p.field,
        kind: 'asWritten',
        column: p.column,
        samples: [...new Set(marked)].slice(0, 5),
        question: `"${p.column}" → ${p.field}: ${marked.length} of its ${p.cells.length} sampled cells ${marked.length === 1 ? 'starts' : 'start'} with an apostrophe (${samplesOf(marked)}), the mark an export puts before a number to keep spreadsheets from changing it: the mapping sends it as part of the value (no rule strips it). Keep the cells as written, or remove the apostrophes from the export first`,
      },
    ];
  });
}
