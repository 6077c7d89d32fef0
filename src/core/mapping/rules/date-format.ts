/**
 * `"format"`: a Unicode date pattern (yyyy-MM-dd HH:mm, dd.MM.yy, M/d/yyyy h:mm a, …) compiled once into one
 * regular expression; a cell is read by one exec and a few range checks. Letters are tokens, text in single quotes
 * and every other character is literal. A two-digit year (yy) falls in the 100 years from `twoDigitYearStart`
 * (default 1969, POSIX strptime's window: 69–99 → 1969–1999, 00–68 → 2000–2068).
 */
import { closestName } from '../targets.js';

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
  /** The parts, or undefined when the cell does not match the pattern or names an impossible date. */
  parse(cell: string): DateParts | undefined;
}

type Part = keyof DateParts | 'ampm' | 'monthName' | 'shortYear' | 'fraction';
interface Token {
  source: string;
  part?: Part;
}

const MONTHS = [
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
const OFFSET = '(Z|[+-]\\d{2}(?::?\\d{2})?)';
const TOKENS: Record<string, Token> = {
  yyyy: { source: '(\\d{4})', part: 'year' },
  yy: { source: '(\\d{2})', part: 'shortYear' },
  MMMM: { source: `(${MONTHS.join('|')})`, part: 'monthName' },
  MMM: { source: `(${MONTHS.map((m) => m.slice(0, 3)).join('|')})\\.?`, part: 'monthName' },
  MM: { source: '(\\d{2})', part: 'month' },
  M: { source: '(\\d{1,2})', part: 'month' },
  dd: { source: '(\\d{2})', part: 'day' },
  d: { source: '(\\d{1,2})', part: 'day' },
  HH: { source: '(\\d{2})', part: 'hour' },
  H: { source: '(\\d{1,2})', part: 'hour' },
  hh: { source: '(\\d{2})', part: 'hour' },
  h: { source: '(\\d{1,2})', part: 'hour' },
  mm: { source: '(\\d{2})', part: 'minute' },
  m: { source: '(\\d{1,2})', part: 'minute' },
  ss: { source: '(\\d{2})', part: 'second' },
  s: { source: '(\\d{1,2})', part: 'second' },
  SSS: { source: '(\\d{3})', part: 'fraction' },
  SS: { source: '(\\d{2})', part: 'fraction' },
  S: { source: '(\\d)', part: 'fraction' },
  a: { source: '([ap]\\.?m\\.?)', part: 'ampm' },
  XXX: { source: OFFSET, part: 'offset' },
  XX: { source: OFFSET, part: 'offset' },
  X: { source: OFFSET, part: 'offset' },
  xxx: { source: OFFSET.replace('Z|', ''), part: 'offset' },
  xx: { source: OFFSET.replace('Z|', ''), part: 'offset' },
  x: { source: OFFSET.replace('Z|', ''), part: 'offset' },
};

/** A pattern the mapping file cannot use: the message says which token and what to write instead. */
export class DateFormatError extends Error {}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileDateFormat(pattern: string, twoDigitYearStart = 1969): DateFormat {
  let source = '';
  const parts: Part[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === -1) throw new DateFormatError(`format "${pattern}": a quote (') that is never closed`);
      source += end === i + 1 ? "'" : escapeRegExp(pattern.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      source += /\s/.test(c) ? '\\s+' : escapeRegExp(c);
      i++;
      continue;
    }
    let run = c;
    while (pattern[i + run.length] === c) run += c;
    const token = TOKENS[run];
    if (!token) throw new DateFormatError(unknownToken(pattern, run));
    source += token.source;
    parts.push(token.part!);
    seen.add(run[0]!);
    i += run.length;
  }
  checkComplete(pattern, seen);
  const regex = new RegExp(`^${source}$`, 'i');
  const hasTime = seen.has('H') || seen.has('h');
  const hasOffset = seen.has('X') || seen.has('x');
  return { pattern, hasTime, hasOffset, parse: (cell) => readParts(regex.exec(cell), parts, twoDigitYearStart) };
}

function checkComplete(pattern: string, seen: Set<string>): void {
  const missing = [
    ['y', 'year (yyyy)'],
    ['M', 'month (MM)'],
    ['d', 'day (dd)'],
  ]
    .filter(([letter]) => !seen.has(letter!))
    .map(([, name]) => name);
  if (missing.length > 0)
    throw new DateFormatError(
      `format "${pattern}" has no ${missing.join(', ')}: a date needs a year, a month and a day`,
    );
  if (seen.has('h') && !seen.has('a'))
    throw new DateFormatError(`format "${pattern}": h/hh is the 12-hour clock and needs a (AM/PM); use HH for 00–23`);
  if (seen.has('a') && seen.has('H'))
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

function readParts(
  match: RegExpExecArray | null,
  parts: readonly Part[],
  twoDigitYearStart: number,
): DateParts | undefined {
  if (!match) return undefined;
  const out: DateParts = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 };
  let pm: boolean | undefined;
  for (let i = 0; i < parts.length; i++) {
    const text = match[i + 1]!;
    const part = parts[i]!;
    if (part === 'monthName') out.month = MONTHS.findIndex((m) => m.startsWith(text.slice(0, 3).toLowerCase())) + 1;
    else if (part === 'ampm') pm = text[0] === 'p' || text[0] === 'P';
    else if (part === 'shortYear') {
      const base = twoDigitYearStart - (twoDigitYearStart % 100);
      const year = base + Number(text);
      out.year = year < twoDigitYearStart ? year + 100 : year;
    } else if (part === 'fraction') out.millisecond = Number(text.padEnd(3, '0'));
    else if (part === 'offset') out.offset = offsetMinutes(text);
    else out[part] = Number(text);
  }
  if (pm !== undefined) {
    if (out.hour < 1 || out.hour > 12) return undefined;
    out.hour = (out.hour % 12) + (pm ? 12 : 0);
  }
  return isRealDate(out) ? out : undefined;
}

function offsetMinutes(text: string): number {
  if (text === 'Z' || text === 'z') return 0;
  const digits = text.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return text[0] === '-' ? -minutes : minutes;
}

/** True when the parts name a day the calendar has, at a time the clock shows. */
export function isRealDate(p: DateParts): boolean {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return false;
  return p.day <= (p.month === 2 && isLeapYear(p.year) ? 29 : DAYS_IN_MONTH[p.month - 1]!);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
