/**
 * `"format"`: a Unicode date pattern (yyyy-MM-dd HH:mm, dd.MM.yy, M/d/yyyy h:mm a, …) compiled once into a list
 * of elements that date-match.ts reads a cell against in one pass, then a few range checks. Letters are tokens,
 * text in single quotes and every other character is literal; whitespace matches whitespace (as many or more).
 * A two-digit year (yy) falls in the 100 years from `twoDigitYearStart` (default 1969, POSIX strptime's window:
 * 69–99 → 1969–1999, 00–68 → 2000–2068). A format is refused when it is compiled if it names a part twice, or if
 * a greedy reading could differ from the obvious one (a 1–2 digit token directly before more digits).
 */
import { closestName } from '../targets.js';
import { matchElements, type Element, type Found, type NumberPart } from './date-match.js';

export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC, when the pattern has an offset token and the cell one. */
  offset?: number;
}

export interface DateFormat {
  pattern: string;
  hasTime: boolean;
  hasOffset: boolean;
  /** The parts; a refusal saying why the cell names no instant; undefined when it does not match or names no day. */
  parse(cell: string): DateParts | DateRefusal | undefined;
}

/** A cell that matches the format but names no instant, and why (the message quotes the cell). */
export class DateRefusal {
  constructor(readonly reason: string) {}
}

/** The largest offset a cell may carry, in minutes: the world's clocks run from UTC−12:00 to UTC+14:00. */
export const MAX_OFFSET_MINUTES = 14 * 60;

/** The part of a date each token gives: a format gives each at most once. */
type Slot = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction' | 'AM/PM' | 'offset';
type TokenElement = Element & { kind: 'number' | 'monthName' | 'ampm' | 'offset' };
const number = (part: NumberPart, min: number, max = min): TokenElement => ({ kind: 'number', part, min, max });
const TOKENS: Record<string, { slot: Slot; element: TokenElement }> = {
  yyyy: { slot: 'year', element: number('year', 4) },
  yy: { slot: 'year', element: number('shortYear', 2) },
  MMMM: { slot: 'month', element: { kind: 'monthName', long: true, dot: true } },
  MMM: { slot: 'month', element: { kind: 'monthName', long: false, dot: true } },
  MM: { slot: 'month', element: number('month', 2) },
  M: { slot: 'month', element: number('month', 1, 2) },
  dd: { slot: 'day', element: number('day', 2) },
  d: { slot: 'day', element: number('day', 1, 2) },
  HH: { slot: 'hour', element: number('hour', 2) },
  H: { slot: 'hour', element: number('hour', 1, 2) },
  hh: { slot: 'hour', element: number('hour', 2) },
  h: { slot: 'hour', element: number('hour', 1, 2) },
  mm: { slot: 'minute', element: number('minute', 2) },
  m: { slot: 'minute', element: number('minute', 1, 2) },
  ss: { slot: 'second', element: number('second', 2) },
  s: { slot: 'second', element: number('second', 1, 2) },
  SSS: { slot: 'fraction', element: number('fraction', 3) },
  SS: { slot: 'fraction', element: number('fraction', 2) },
  S: { slot: 'fraction', element: number('fraction', 1) },
  a: { slot: 'AM/PM', element: { kind: 'ampm', dot: true } },
  XXX: { slot: 'offset', element: { kind: 'offset', zulu: true } },
  XX: { slot: 'offset', element: { kind: 'offset', zulu: true } },
  X: { slot: 'offset', element: { kind: 'offset', zulu: true } },
  xxx: { slot: 'offset', element: { kind: 'offset', zulu: false } },
  xx: { slot: 'offset', element: { kind: 'offset', zulu: false } },
  x: { slot: 'offset', element: { kind: 'offset', zulu: false } },
};

/** A pattern the mapping file cannot use: the message says which token and what to write instead. */
export class DateFormatError extends Error {}

/** `field` names the field the format reads, for messages (createdAt). */
export function compileDateFormat(pattern: string, twoDigitYearStart = 1969, field = 'the field'): DateFormat {
  const elements: Element[] = [];
  const seen = new Map<Slot, string>();
  const letters = new Set<string>();
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === -1) throw new DateFormatError(`format "${pattern}": a quote (') that is never closed`);
      pushText(elements, end === i + 1 ? "'" : pattern.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      if (/\s/.test(c)) pushSpace(elements, 1);
      else pushText(elements, c);
      i++;
      continue;
    }
    let run = c;
    while (pattern[i + run.length] === c) run += c;
    const token = TOKENS[run];
    if (!token) throw new DateFormatError(unknownToken(pattern, run));
    const earlier = seen.get(token.slot);
    if (earlier !== undefined)
      throw new DateFormatError(
        `format "${pattern}" gives the ${token.slot} of ${field} twice ("${earlier}" and "${run}"): a date has one; keep one`,
      );
    seen.set(token.slot, run);
    elements.push({ ...token.element });
    letters.add(c);
    i += run.length;
  }
  checkComplete(pattern, letters, field);
  checkUnambiguous(pattern, elements);
  const hasTime = letters.has('H') || letters.has('h');
  const hasOffset = letters.has('X') || letters.has('x');
  return {
    pattern,
    hasTime,
    hasOffset,
    parse: (cell) => {
      const found = matchElements(elements, cell);
      return found && toParts(found, twoDigitYearStart);
    },
  };
}

/** Whitespace runs merge: k whitespace characters in the format (quoted or not) match k or more in the cell. */
function pushSpace(elements: Element[], count: number): void {
  const last = elements.at(-1);
  if (last?.kind === 'space') last.min += count;
  else elements.push({ kind: 'space', min: count });
}

function pushText(elements: Element[], text: string): void {
  let rest = text.toLowerCase();
  // quoted whitespace right after a format's whitespace joins it: the run is read once, as the regex read it
  if (elements.at(-1)?.kind === 'space') {
    const lead = rest.length - rest.trimStart().length;
    if (lead > 0) pushSpace(elements, lead);
    rest = rest.slice(lead);
  }
  if (rest === '') return;
  const last = elements.at(-1);
  if (last?.kind === 'text') last.text += rest;
  else elements.push({ kind: 'text', text: rest });
}

/**
 * A 1–2 digit token (M, d, H, h, m, s) right before more digits, or an offset right before digits or ":", has two
 * readings ("1112024" with "Mdyyyy": 11 January or 1 November): refused rather than read one way silently.
 * A dot that MMM or a may take goes to them only when the text the format writes after them still follows.
 */
function checkUnambiguous(pattern: string, elements: Element[]): void {
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    const next = elements[i + 1];
    const startsWith = (chars: string) => next?.kind === 'text' && chars.includes(next.text[0]!);
    const digitsNext = next?.kind === 'number' || startsWith('0123456789');
    if (element.kind === 'number' && element.min !== element.max && digitsNext)
      throw new DateFormatError(
        `format "${pattern}": a 1–2 digit token (M, d, H, h, m, s) directly before more digits can be read two ways; use the 2-digit token (MM, dd, HH, …) or put a separator between them`,
      );
    if (element.kind === 'offset' && (digitsNext || startsWith(':')))
      throw new DateFormatError(
        `format "${pattern}": an offset (X, x) directly before digits or ":" can be read two ways; put a separator after it`,
      );
    if ((element.kind === 'monthName' || element.kind === 'ampm') && next?.kind === 'text' && startsWith('.'))
      element.dot = { before: next.text };
  }
}

function checkComplete(pattern: string, letters: Set<string>, field: string): void {
  const missing = [
    ['y', 'year (yyyy)'],
    ['M', 'month (MM)'],
    ['d', 'day (dd)'],
  ]
    .filter(([letter]) => !letters.has(letter!))
    .map(([, name]) => name);
  if (missing.length > 0)
    throw new DateFormatError(
      `format "${pattern}" has no ${missing.join(', ')}: a date needs a year, a month and a day`,
    );
  // a smaller unit without the larger one would be read into a time the cell never gave (the hour invented as 00)
  for (const [unit, needs, name] of [
    ['m', 'Hh', 'minutes (mm) without an hour (HH)'],
    ['s', 'm', 'seconds (ss) without minutes (mm)'],
    ['S', 's', 'a fraction (SSS) without seconds (ss)'],
    ['a', 'h', 'an AM/PM marker (a) without an hour (hh)'],
  ] as const)
    if (letters.has(unit) && ![...needs].some((letter) => letters.has(letter)))
      throw new DateFormatError(
        `format "${pattern}" of ${field} has ${name}: the time would be made up; give the whole time, or leave it out`,
      );
  if (letters.has('h') && !letters.has('a'))
    throw new DateFormatError(`format "${pattern}": h/hh is the 12-hour clock and needs a (AM/PM); use HH for 00–23`);
  if (letters.has('a') && letters.has('H'))
    throw new DateFormatError(`format "${pattern}": HH is the 24-hour clock; with a (AM/PM) use hh`);
}

/** The usual slips: YYYY and DD (week-year and day-of-year in Unicode patterns), and tokens of other libraries. */
function tokenGuess(run: string): string | undefined {
  return TOKENS[run.toLowerCase()] ? run.toLowerCase() : closestName(run, Object.keys(TOKENS));
}

function unknownToken(pattern: string, run: string): string {
  // every slip fixed at once: "YYYY-MM-DD" suggests "yyyy-MM-dd", not "yyyy-MM-DD" (DD would be the next error)
  const fixed = tokenGuess(run)
    ? pattern.replace(/'[^']*'|([A-Za-z])\1*/g, (found) =>
        found.startsWith("'") || TOKENS[found] ? found : (tokenGuess(found) ?? found),
      )
    : undefined;
  return `format "${pattern}": unknown token "${run}"${fixed ? ` (did you mean "${fixed}"?)` : ''}; tokens: yyyy yy MMMM MMM MM M dd d HH H hh h mm m ss s SSS a XXX`;
}

/** The date the cell names, or undefined when it names none (31 February, 13 PM, an offset of +99:99). */
function toParts(found: Found, twoDigitYearStart: number): DateParts | DateRefusal | undefined {
  const n = found.numbers;
  const out: DateParts = {
    year: n.year ?? 0,
    month: found.month ?? n.month ?? 1,
    day: n.day ?? 1,
    hour: n.hour ?? 0,
    minute: n.minute ?? 0,
    second: n.second ?? 0,
    millisecond: n.fraction === undefined ? 0 : n.fraction * 10 ** (3 - found.fractionDigits!),
  };
  if (n.shortYear !== undefined) {
    const year = twoDigitYearStart - (twoDigitYearStart % 100) + n.shortYear;
    out.year = year < twoDigitYearStart ? year + 100 : year;
  }
  if (found.pm !== undefined) {
    if (out.hour < 1 || out.hour > 12) return undefined;
    out.hour = (out.hour % 12) + (found.pm ? 12 : 0);
  }
  if (!isRealDate(out)) return undefined;
  if (found.offset) {
    const { sign, hours, minutes } = found.offset;
    out.offset = sign * (hours * 60 + minutes);
    const refusal = offsetRefusal(hours, minutes);
    if (refusal) return refusal;
  }
  return out;
}

/** Why an offset no clock shows is refused (+99:99, +02:75, +15:00), or undefined for a real one. */
export function offsetRefusal(hours: number, minutes: number): DateRefusal | undefined {
  if (minutes <= 59 && hours * 60 + minutes <= MAX_OFFSET_MINUTES) return undefined;
  const written = `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
  return new DateRefusal(
    `its offset ${written} is not a real one: offsets run from -14:00 to +14:00, with minutes 00–59`,
  );
}

/** True when the parts name a day the calendar has, at a time the clock shows. */
export function isRealDate(p: DateParts): boolean {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return false;
  return p.day <= (p.month === 2 && isLeapYear(p.year) ? 29 : DAYS_IN_MONTH[p.month - 1]!);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** UTC milliseconds of a wall-clock time, the year as written (Date.UTC reads years 0–99 as 1900–1999). */
export function utcMilliseconds(p: Omit<DateParts, 'offset'>): number {
  const date = new Date(0);
  date.setUTCFullYear(p.year, p.month - 1, p.day);
  date.setUTCHours(p.hour, p.minute, p.second, p.millisecond);
  return date.getTime();
}
