/**
 * CSV cells are text: these read them as the field's type. Each returns the value, or a CellProblem that becomes
 * the record's issue for that field. Cells arrive trimmed and non-empty (empty means "not given").
 */
import type { CellType } from './targets.js';
import { quoteCell } from './quote-cell.js';
import { survivesAsDouble } from '../../schemas/exact-number.js';
import { CUSTOM_VALUE_LEVELS, nestedDeeperThan, TOO_DEEP_MESSAGE } from '../../schemas/json-depth.js';

export class CellProblem {
  constructor(
    readonly message: string,
    readonly rule: string,
  ) {}
}

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

export function toBoolean(cell: string): boolean | CellProblem {
  const lower = cell.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  return new CellProblem(`expected true/false, yes/no, y/n or 1/0, got ${quoteCell(cell)}`, 'not a boolean');
}

/** The same words the schema's date-time issue uses for a CSV cell (see issues.ts). */
export const CSV_DATE_EXPECTED = 'an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z) or a date (2024-05-01)';

/** The number written by the ASCII digits from `from` to `to`, or -1 when any is not one. */
function digitsAt(cell: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = cell.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * A plain date (yyyy-mm-dd, ASCII digits) becomes midnight UTC; anything else goes to the schema as written, which
 * checks the date-time. A plain date that is no date (1985-13-01) is refused here, so the message quotes the cell,
 * not the midnight we would have made of it. Read by character codes: a regular expression's match cost an array
 * and three strings per cell (test/core/coerce-date.test.ts holds it to /^(\d{4})-(\d{2})-(\d{2})$/).
 */
export function toDateTime(cell: string): string | CellProblem {
  if (cell.length !== 10 || cell.charCodeAt(4) !== 45 || cell.charCodeAt(7) !== 45) return cell;
  const year = digitsAt(cell, 0, 4);
  const month = digitsAt(cell, 5, 7);
  const day = digitsAt(cell, 8, 10);
  if (year < 0 || month < 0 || day < 0) return cell;
  return isCalendarDate(year, month, day)
    ? `${cell}T00:00:00.000Z`
    : new CellProblem(`expected ${CSV_DATE_EXPECTED}, got ${quoteCell(cell)}`, 'not an ISO 8601 date-time');
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The day exists (Gregorian leap years, as the schema's date-time check has them; a parse per row cost 0.5 µs). */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function toNumber(cell: string): number | CellProblem {
  const n = NUMBER.test(cell) ? Number(cell) : Number.NaN;
  if (!Number.isFinite(n)) return new CellProblem(`expected a number, got ${quoteCell(cell)}`, 'not a number');
  // 12345678901234567890 would be sent as 12345678901234567000: refused, not rounded (docs/decisions.md)
  if (!survivesAsDouble(cell))
    return new CellProblem(
      `${quoteCell(cell)} cannot be held exactly as a number (it would be sent as ${JSON.stringify(n)}): give the column "type": "string" to send it as text`,
      'number not exact',
    );
  return n;
}

export function toJson(cell: string): unknown {
  try {
    const value = JSON.parse(cell) as unknown;
    return nestedDeeperThan(value, CUSTOM_VALUE_LEVELS)
      ? new CellProblem(`the JSON value is ${TOO_DEEP_MESSAGE}`, 'too deep')
      : value;
  } catch {
    return new CellProblem(`expected a JSON value (the column's type is json), got ${quoteCell(cell)}`, 'not JSON');
  }
}

export function coerceCustom(cell: string, type: CellType): unknown {
  switch (type) {
    case 'number':
      return toNumber(cell);
    case 'boolean':
      return toBoolean(cell);
    case 'json':
      return toJson(cell);
    default:
      return cell;
  }
}
