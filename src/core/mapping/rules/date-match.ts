/**
 * Reads a cell against a compiled date format in one pass: the cell is walked left to right once, each element
 * taking what it can and never giving it back, so the work is at most a few steps per character of the cell plus
 * a few per element, whatever the cell holds (a backtracking regular expression built from the format took
 * seconds on a cell of spaces, and grew with its square). The format is checked when it is compiled so that this
 * greedy walk reads every cell the way the old regular expression did (date-format.ts refuses what would differ).
 */

/** What a number token fills. */
export type NumberPart = 'year' | 'shortYear' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction';

export type Element =
  /** Literal text, lower-cased; the cell's text is compared in any case. */
  | { kind: 'text'; text: string }
  /** Whitespace in the format: at least `min` whitespace characters in the cell, and all that follow. */
  | { kind: 'space'; min: number }
  /** `min`–`max` ASCII digits. */
  | { kind: 'number'; part: NumberPart; min: number; max: number }
  /** An English month name, whole (MMMM) or its first three letters (MMM, with an optional dot: see OptionalDot). */
  | { kind: 'monthName'; long: boolean; dot: OptionalDot }
  /** am, pm, a.m., p.m. (the last dot optional: see OptionalDot). */
  | { kind: 'ampm'; dot: OptionalDot }
  /** Z (when `zulu`), ±hh, ±hhmm or ±hh:mm. */
  | { kind: 'offset'; zulu: boolean };

/**
 * The dot MMM and a may end with: taken when the cell has one (`true`), or, when the format writes text starting
 * with a dot right after the token (`{ before }`), only when that text follows it ("Jan.." for "MMM."), as the
 * regular expression's backtracking did.
 */
export type OptionalDot = true | { before: string };

function dotEnd(dot: OptionalDot, cell: string, end: number): number {
  if (cell[end] !== '.') return end;
  if (dot === true) return end + 1;
  steps += dot.before.length;
  return cell.slice(end + 1, end + 1 + dot.before.length).toLowerCase() === dot.before ? end + 1 : end;
}

export const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** What a match found, as written (numbers as their digits' value; the range checks come after). */
export interface Found {
  numbers: Partial<Record<NumberPart, number>>;
  /** The digits of the fraction, for their count (5 → 500 ms, 05 → 50 ms). */
  fractionDigits?: number;
  month?: number;
  pm?: boolean;
  /** Offset sign, hours and minutes as written. */
  offset?: { sign: 1 | -1; hours: number; minutes: number };
}

let steps = 0;
/** Characters examined by every match so far: tests check that the work grows with the cell, not its square. */
export const dateMatchSteps = () => steps;

const isDigit = (c: number) => c >= 48 && c <= 57;
const WHITESPACE = /\s/;
/** As \s reads it; a plain space first (nearly every one). */
const isSpace = (ch: string) => ch === ' ' || WHITESPACE.test(ch);

/** The parts the cell holds, or undefined when it does not follow the elements. */
export function matchElements(elements: readonly Element[], cell: string): Found | undefined {
  const found: Found = { numbers: {} };
  let at = 0;
  for (const element of elements) {
    const next = matchOne(element, cell, at, found);
    if (next === undefined) return undefined;
    at = next;
  }
  return at === cell.length ? found : undefined;
}

/** The position after the element, or undefined when the cell does not hold it at `at`. */
function matchOne(element: Element, cell: string, at: number, found: Found): number | undefined {
  switch (element.kind) {
    case 'text': {
      if (cell.length - at < element.text.length) return undefined;
      for (let i = 0; i < element.text.length; i++) {
        steps++;
        if (cell[at + i]!.toLowerCase() !== element.text[i]) return undefined;
      }
      return at + element.text.length;
    }
    case 'space': {
      let end = at;
      while (end < cell.length && isSpace(cell[end]!)) {
        steps++;
        end++;
      }
      return end - at >= element.min ? end : undefined;
    }
    case 'number': {
      const end = digitsEnd(cell, at, element.max);
      if (end - at < element.min) return undefined;
      found.numbers[element.part] = digitsValue(cell, at, end);
      if (element.part === 'fraction') found.fractionDigits = end - at;
      return end;
    }
    case 'monthName':
      return matchMonth(element.long, element.dot, cell, at, found);
    case 'ampm':
      return matchAmPm(element.dot, cell, at, found);
    case 'offset':
      return matchOffset(element.zulu, cell, at, found);
  }
}

function digitsEnd(cell: string, at: number, max: number): number {
  let end = at;
  while (end - at < max && end < cell.length && isDigit(cell.charCodeAt(end))) {
    steps++;
    end++;
  }
  return end;
}

/** The number the ASCII digits from `at` to `end` write (at most 4 of them). */
function digitsValue(cell: string, at: number, end: number): number {
  let value = 0;
  for (let i = at; i < end; i++) value = value * 10 + cell.charCodeAt(i) - 48;
  return value;
}

function matchMonth(long: boolean, dot: OptionalDot, cell: string, at: number, found: Found): number | undefined {
  // the names are prefix-free (whole or cut to three letters): at most one of them is at `at`
  for (let m = 0; m < 12; m++) {
    const name = long ? MONTHS[m]! : MONTHS[m]!.slice(0, 3);
    steps++;
    if (cell.slice(at, at + name.length).toLowerCase() !== name) continue;
    found.month = m + 1;
    const end = at + name.length;
    return long ? end : dotEnd(dot, cell, end);
  }
  return undefined;
}

function matchAmPm(dot: OptionalDot, cell: string, at: number, found: Found): number | undefined {
  steps++;
  const first = cell[at]?.toLowerCase();
  if (first !== 'a' && first !== 'p') return undefined;
  let end = at + 1;
  if (cell[end] === '.') end++;
  if (cell[end]?.toLowerCase() !== 'm') return undefined;
  end = dotEnd(dot, cell, end + 1);
  found.pm = first === 'p';
  return end;
}

function matchOffset(zulu: boolean, cell: string, at: number, found: Found): number | undefined {
  steps++;
  const sign = cell[at];
  if (zulu && (sign === 'Z' || sign === 'z')) {
    found.offset = { sign: 1, hours: 0, minutes: 0 };
    return at + 1;
  }
  if (sign !== '+' && sign !== '-') return undefined;
  const hoursEnd = digitsEnd(cell, at + 1, 2);
  if (hoursEnd - at !== 3) return undefined;
  const colon = cell[hoursEnd] === ':' ? 1 : 0;
  const minutesEnd = digitsEnd(cell, hoursEnd + colon, 2);
  const hasMinutes = minutesEnd - (hoursEnd + colon) === 2;
  found.offset = {
    sign: sign === '-' ? -1 : 1,
    hours: digitsValue(cell, at + 1, hoursEnd),
    minutes: hasMinutes ? digitsValue(cell, hoursEnd + colon, minutesEnd) : 0,
  };
  return hasMinutes ? minutesEnd : hoursEnd;
}
