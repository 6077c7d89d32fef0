/** The CSV delimiter: given with --delimiter, or the most frequent of , ; tab | in the header line. */
import { UsageError } from '../errors.js';

const CANDIDATES = [',', ';', '\t', '|'] as const;

/** Accepts a single character, or "tab" / "\t" spelled out (hard to type on a command line). */
export function normalizeDelimiter(given: string): string {
  const value = given === 'tab' || given === '\\t' ? '\t' : given;
  if (value.length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw new UsageError(`--delimiter ${JSON.stringify(given)}: expected one character such as , ; | or "tab"`, {
      code: 'delimiter',
      hint: 'Leave --delimiter out to detect it from the header line.',
    });
  }
  return value;
}

/** Counts the candidates outside quotes in the first non-blank line; a tie goes to the earlier candidate, none to ','. */
export function detectDelimiter(head: string): string {
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  let seenContent = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      if (seenContent) break;
      continue;
    } else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
    if (c !== ' ' && c !== '\ufeff') seenContent = true;
  }
  let best: string = ',';
  let bestCount = 0;
  for (const c of CANDIDATES) {
    if (counts.get(c)! > bestCount) {
      best = c;
      bestCount = counts.get(c)!;
    }
  }
  return best;
}
