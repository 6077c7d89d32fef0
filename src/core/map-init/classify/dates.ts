/**
 * How a date column reads: the format of its text cells (ISO cells read as they are), whether its times carry an
 * offset, and whether the format is ambiguous (every cell reads as dd/MM and as MM/dd).
 */
import { compileDateFormat } from '../../mapping/rules/date-format.js';

/** Patterns tried on a date column's cells, most specific and most common first; dd/MM before MM/dd. */
const DATE_PATTERNS = [
  // Salesforce's exports: ISO but for the offset's missing colon (+0000), which ISO 8601's extended form needs
  "yyyy-MM-dd'T'HH:mm:ss.SSSxx",
  "yyyy-MM-dd'T'HH:mm:ssxx",
  "yyyy-MM-dd'T'HH:mm:ss.SSS",
  "yyyy-MM-dd'T'HH:mm:ss",
  'yyyy-MM-dd HH:mm:ss',
  'yyyy-MM-dd HH:mm',
  'yyyy/MM/dd HH:mm',
  'yyyy/MM/dd',
  'dd-MM-yyyy HH:mm',
  'dd-MM-yyyy',
  'dd.MM.yyyy HH:mm',
  'dd.MM.yyyy',
  'dd/MM/yyyy HH:mm',
  'dd/MM/yyyy',
  'MM/dd/yyyy HH:mm',
  'MM/dd/yyyy',
  'M/d/yyyy h:mm a',
  'M/d/yyyy H:mm',
  'M/d/yyyy',
  'd/M/yyyy',
  'M/d/yy',
  'd.M.yy',
  'd MMM yyyy',
  'MMM d, yyyy',
  'MMMM d, yyyy',
].map((pattern) => compileDateFormat(pattern));

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export interface DateGuess {
  /** The format of the cells that are not ISO 8601 (a mapping's date rule reads ISO beside its format). */
  format?: string;
  /** Times without an offset (in the format or in ISO cells): the cells are local times and need a zone. */
  local: boolean;
  /** Indexes of the sampled cells nothing reads (a typo in the export, or 31-02: worth a look). */
  misses: number[];
  /** Cells already ISO 8601 (a workbook's real date cells come so), and the rest (text, in `format` or missed). */
  iso: number;
  text: number;
  /** Another format that reads every text cell to other dates (dd/MM/yyyy beside MM/dd/yyyy): the file cannot say. */
  alternative?: string;
}

/** Most cells a guess must read: one bad date in an export should not hide its format. */
const READS = 0.8;

/**
 * How a date column reads: ISO cells as they are, the others in the format that reads most of them; undefined
 * when less than 80% of the sample is read (not a date column).
 */
export function guessDateFormat(cells: readonly string[]): DateGuess | undefined {
  if (cells.length === 0) return undefined;
  const isIso = (c: string) => ISO_DATE.test(c) || ISO_WITH_OFFSET.test(c) || ISO_LOCAL.test(c);
  const text = cells.filter((c) => !isIso(c));
  let best: { format: (typeof DATE_PATTERNS)[number]; reads: number } | undefined;
  for (const format of text.length > 0 ? DATE_PATTERNS : []) {
    const reads = text.filter((c) => format.parse(c) !== undefined).length;
    if (!best || reads > best.reads) best = { format, reads };
    if (reads === text.length) break;
  }
  const format = best && best.reads > 0 ? best.format : undefined;
  const iso = cells.length - text.length;
  if (iso + (format ? best!.reads : 0) < cells.length * READS) return undefined;
  const misses: number[] = [];
  cells.forEach((c, i) => {
    if (isIso(c) ? !realIso(c) : format?.parse(c) === undefined) misses.push(i);
  });
  const local = cells.some((c) => ISO_LOCAL.test(c)) || (format !== undefined && format.hasTime && !format.hasOffset);
  const alternative = format && misses.length === 0 ? swappedReading(format.pattern, text) : undefined;
  return { format: format?.pattern, local, misses, iso, text: text.length, ...(alternative ? { alternative } : {}) };
}

/** The day-month swap of a pattern, when it reads every cell too (all days up to 12): the order is a guess. */
function swappedReading(pattern: string, cells: readonly string[]): string | undefined {
  const swapped = pattern.replace(/d+|M+/g, (token) =>
    token[0] === 'd' ? 'M'.repeat(token.length) : 'd'.repeat(token.length),
  );
  if (swapped === pattern || /MMM/.test(pattern) || !/^[dM]/.test(pattern)) return undefined;
  const other = compileDateFormat(swapped);
  return cells.every((c) => other.parse(c) !== undefined) ? swapped : undefined;
}

/** Each time token as it writes midnight: a date-time format becomes a date format that reads only that time. */
const MIDNIGHT: Record<string, string> = {
  HH: '00',
  H: '0',
  hh: '12',
  h: '12',
  mm: '00',
  m: '0',
  ss: '00',
  s: '0',
  SSS: '000',
  SS: '00',
  S: '0',
  a: 'AM',
};
/** ISO local date-times (a workbook's date cells) at midnight, as a format that reads the day only. */
const ISO_MIDNIGHT = ["yyyy-MM-dd'T'00:00", "yyyy-MM-dd'T'00:00:00", "yyyy-MM-dd'T'00:00:00.000"];

/**
 * The format that reads a column of midnight date-times as calendar dates ("yyyy-MM-dd '00:00'" for
 * "1990-06-15 00:00"): the time is literal text, so the day is kept as written (no zone moves it) and a cell with
 * another time is refused, never read. Undefined when some sampled cell is not at midnight.
 */
export function midnightFormat(cells: readonly string[], guess: DateGuess): string | undefined {
  const candidates = [...(guess.format ? [dateOnly(guess.format)] : []), ...ISO_MIDNIGHT];
  const timed = cells.filter((c) => !ISO_DATE.test(c));
  for (const pattern of candidates) {
    if (pattern === undefined) continue;
    const format = compileDateFormat(pattern);
    if (timed.every((c) => isParts(format.parse(c)))) return pattern;
  }
  return undefined;
}

/** "yyyy-MM-dd HH:mm" → "yyyy-MM-dd '00:00'"; undefined when the pattern has no time, an offset or quoted text in its time. */
export function dateOnly(pattern: string): string | undefined {
  const at = pattern.search(/[Hh]/);
  if (at < 0 || /['Xx]/.test(pattern.slice(at))) return undefined;
  const time = pattern.slice(at).replace(/([A-Za-z])\1*/g, (token) => MIDNIGHT[token] ?? token);
  return /[A-Za-z]/.test(time.replace(/AM$/, '')) ? undefined : `${pattern.slice(0, at)}'${time}'`;
}

function isParts(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && 'year' in parsed;
}

/** An ISO-shaped cell that names a real day ("1985-02-31" and "1990-13-01" do not: the export's typos). */
function realIso(cell: string): boolean {
  const [year, month, day] = cell.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
