/**
 * The shrink guard: a nightly export with far fewer rows than the last good run's is refused before anything is
 * sent. A file cut short by a full disk or a failed transfer, or an export that came out empty, would otherwise
 * pass as a good night: its missing members simply look unchanged, and a cut last row sends a cut value.
 *
 * The count compared is the records of the input, taken before the run (io/count-rows.ts: line breaks outside
 * quoted cells, so a cell that spans lines is one record, as for the reader), an upper bound that only lines of
 * spaces can raise; the reference is the records the last whole run read. Records are compared with records.
 */
import { UsageError } from '../../../errors.js';

/** --max-shrink default: refuse a run with more than 10% fewer rows than the last good one. */
export const DEFAULT_MAX_SHRINK = 0.1;

export function parseMaxShrink(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const percent = match ? Number(match[1]) : NaN;
  if (!(percent >= 0 && percent <= 100)) {
    throw new UsageError(`--max-shrink must be a percentage from 0 to 100, got "${text}"`, {
      code: 'max-shrink',
      hint: 'For example --max-shrink 10% (refuse a run with more than 10% fewer rows than the last good run); --allow-shrink lets one run through.',
    });
  }
  return percent / 100;
}

export interface ShrinkCheck {
  /** Rows in this run's input, at most (counted before the run); undefined when it cannot be counted (stdin). */
  rows: number | undefined;
  lastGoodRows: number | undefined;
  maxShrink: number;
  allowShrink: boolean;
  input: string;
  state: string;
}

export function checkShrink(check: ShrinkCheck): void {
  const { rows, lastGoodRows } = check;
  if (check.allowShrink || rows === undefined || lastGoodRows === undefined || lastGoodRows === 0) return;
  if (rows >= lastGoodRows * (1 - check.maxShrink)) return;
  const n = (count: number) => count.toLocaleString('en-US');
  const fewer = Math.round((1 - rows / lastGoodRows) * 1000) / 10;
  throw new UsageError(
    `${check.input} has ${rows === 0 ? 'no rows' : `at most ${n(rows)} rows`}, the last good run had ${n(lastGoodRows)}: ${fewer}% fewer, more than --max-shrink ${Math.round(check.maxShrink * 1000) / 10}% allows; nothing was sent`,
    {
      code: 'input-shrunk',
      hint: `Check the export (cut short? empty?). If members really left, run once with --allow-shrink (or a larger --max-shrink); ${check.state} then remembers the new count.`,
    },
  );
}
