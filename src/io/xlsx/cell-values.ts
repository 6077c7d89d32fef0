/**
 * A cell's value as the text a CSV export of the sheet would hold, or the problem that makes its record invalid:
 * - a number in a date format: "2023-01-05" at midnight, else "2023-01-05T10:22:00" (Excel stores no zone); a time
 *   of day alone (1900 system, serial below 1) "10:22:00"; in a time-only format, a time of day (a serial of a day
 *   or more is a problem: the format hides its date); in a duration format ([h]:mm): a problem;
 * - a number in a fixed-width code format (00000, 000-00-0000): as Excel shows it, "07030";
 * - a boolean: "true" / "false"; a number: its digits (15 significant, as Excel shows them; a phone number stored as
 *   a number keeps its digits, never 4.79e9; a whole number longer than 15 digits is a problem: number-text.ts);
 * - a formula: its saved result (none saved: a problem); an error cell (#N/A): a problem holding its code.
 */
import { type NumberFormat, showDigits } from './number-formats.js';
import { readNumber, SHOWN_DIGITS } from './number-text.js';

export interface CellProblem {
  message: string;
  hint: string;
}

export interface CellText {
  text: string;
  problem?: CellProblem;
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
const LAST_DAY = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function numberCell(ref: string, value: string, format: NumberFormat, date1904: boolean): CellText {
  const number = readNumber(value);
  if (number.kind === 'not-a-number') {
    return { text: value, problem: { message: `cell ${ref} holds "${value}", not a number`, hint: DAMAGED_HINT } };
  }
  if (format.kind === 'date') return serialDate(ref, Number(value), date1904);
  if (format.kind === 'time') return timeOfDay(ref, Number(value));
  if (format.kind === 'elapsed') {
    return refused(
      ref,
      value,
      `holds ${value} in the duration format ${format.code}, which is no date or time of day`,
      {
        hint: 'memberctl reads no durations: give the cell the General format (a number of days) or store it as text.',
      },
    );
  }
  if (number.kind === 'too-long') return tooLong(ref, value, number.digits);
  if (format.kind !== 'digits') return { text: number.text };
  if (!number.integer) {
    return refused(
      ref,
      value,
      `holds ${value} in the format ${format.code}, which shows it rounded to a whole number`,
      {
        hint: 'Correct the value in Excel, or give the cell the General format.',
      },
    );
  }
  return { text: showDigits(number.text, format.parts) };
}

/** A time-only format (`h:mm`, `mm:ss`) hides the date: only a serial below 1 (a day's fraction) is what it shows. */
function timeOfDay(ref: string, serial: number): CellText {
  const ms = snapToSecond(Math.round(serial * DAY_MS));
  if (serial < 0 || ms >= DAY_MS) {
    return refused(ref, String(serial), `holds ${serial} in a time-of-day format, which hides its date`, {
      hint: 'Give the cell a date-and-time format (or General for a number) in Excel, so what it holds is shown.',
    });
  }
  return { text: isoText(EPOCH_1900 + ms).slice(11) };
}

/** The cell's own value stays its text (for the rejects file), with the problem that keeps it from landing. */
function refused(ref: string, value: string, why: string, { hint }: { hint: string }): CellText {
  return { text: value, problem: { message: `cell ${ref} ${why}`, hint } };
}

function tooLong(ref: string, value: string, digits: number): CellText {
  return {
    text: value,
    problem: {
      message: `cell ${ref} holds the number ${value}, ${digits} digits long: Excel keeps and shows only ${SHOWN_DIGITS}, so its last digits are not known`,
      hint: 'A long code (an ID, a card number) must be stored as text: format the column as Text in Excel and enter the values again, or export them from their source as text.',
    },
  };
}

export function booleanCell(ref: string, value: string): CellText {
  if (value === '1' || value === '0') return { text: value === '1' ? 'true' : 'false' };
  return { text: value, problem: { message: `cell ${ref} holds "${value}", not a boolean`, hint: DAMAGED_HINT } };
}

export function errorCell(ref: string, code: string): CellText {
  return {
    text: code,
    problem: {
      message: `cell ${ref} holds the error ${code}`,
      hint: 'Excel shows it where a formula failed: correct the formula or the value, or clear the cell.',
    },
  };
}

export function formulaWithoutValue(ref: string): CellText {
  return {
    text: '',
    problem: {
      message: `cell ${ref} is a formula with no saved value`,
      hint: 'the program that wrote the file saved no result: open and save it in Excel, which saves every result',
    },
  };
}

/** Excel's serial day number as a date: days since 0 January 1900, or since 1 January 1904 in the 1904 system. */
export function serialDate(ref: string, serial: number, date1904: boolean): CellText {
  let ms = snapToSecond(Math.round(serial * DAY_MS));
  const day = Math.floor(ms / DAY_MS);
  const noDate = (why: string): CellText => ({
    text: String(serial),
    problem: { message: `cell ${ref} holds ${serial} in a date format, ${why}`, hint: 'Correct the date in Excel.' },
  });
  if (serial < 0) return noDate('which is no date');
  if (!date1904) {
    if (day === 0) return { text: isoText(EPOCH_1900 + ms).slice(11) }; // 0 January 1900: a time of day alone
    // Excel counts 29 February 1900 (for Lotus 1-2-3's sake), which never was: day 60 is that day, and days
    // 1–59 are one later than a count from 30 December 1899 says
    if (day === 60) return noDate('29 February 1900, a day that did not exist (Excel counts it)');
    if (day < 60) ms += DAY_MS;
  }
  const time = (date1904 ? EPOCH_1904 : EPOCH_1900) + ms;
  if (time > LAST_DAY) return noDate('past the year 9999');
  return { text: dateText(time) };
}

/**
 * A strict-OOXML date cell (`t="d"`): an ISO 8601 date, date-time or time, every part in its range (10:60:00 is
 * no time, not 11:00:00), milliseconds at most (finer digits only when they are zeros).
 */
export function isoDateCell(ref: string, value: string): CellText {
  const notDate = { text: value, problem: { message: `cell ${ref} holds "${value}", not a date`, hint: DAMAGED_HINT } };
  const time = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})0*)?)?$/;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(.*?))?Z?$/.exec(value);
  if (!m) {
    const t = time.exec(value);
    return t && validTime(t) ? { text: value } : notDate;
  }
  const [y, mo, d] = m.slice(1, 4).map(Number) as [number, number, number];
  const t = m[4] === undefined ? undefined : time.exec(m[4]);
  if (m[4] !== undefined && !(t && validTime(t))) return notDate;
  const [h = 0, mi = 0, s = 0] = t ? t.slice(1, 4).map((part) => Number(part ?? 0)) : [];
  const ms = t?.[4] === undefined ? 0 : Number(t[4].padEnd(3, '0'));
  const at = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(at);
  if (y < 1 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return notDate;
  return { text: dateText(at) };
}

function validTime(t: RegExpExecArray): boolean {
  return Number(t[1]) < 24 && Number(t[2]) < 60 && Number(t[3] ?? 0) < 60;
}

const DAMAGED_HINT =
  'Excel never writes this: the file is damaged or was not written by Excel. Save it again in Excel.';

/** Excel keeps times as fractions of a day: 10:22 may come back as 10:21:59.999. */
function snapToSecond(ms: number): number {
  const second = Math.round(ms / 1000) * 1000;
  return Math.abs(ms - second) <= 1 ? second : ms;
}

function dateText(time: number): string {
  const iso = isoText(time);
  if (iso.endsWith('T00:00:00')) return iso.slice(0, 10);
  return iso;
}

/** "2023-01-05T10:22:00", with milliseconds only when there are any. */
function isoText(time: number): string {
  const iso = new Date(time).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}
