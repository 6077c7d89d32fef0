/**
 * One cell rule compiled, once per file, into one function from a cell (trimmed, non-empty) to the value to send,
 * or a CellProblem. The steps, in order: transform → values → convert → format / timeZone → the target's own type.
 * A `values` entry that is not a string is final (true, 3, null); a string goes on through the later steps.
 */
import { isDeepStrictEqual } from 'node:util';
import { coerceCustom, CellProblem, toBoolean, toDateTime } from '../coerce.js';
import type { CellOptions, Transform } from '../mapping-schema.js';
import { REQUIRED_FIELDS } from '../required-fields.js';
import { targetPath, type FieldTarget } from '../targets.js';
import { readCountry, isCountryCode } from './country.js';
import {
  compileDateFormat,
  DateFormatError,
  DateRefusal,
  isRealDate,
  offsetRefusal,
  utcMilliseconds,
  type DateParts,
} from './date-format.js';
import { CELL_LIMITS, quoteCell, tooLong } from '../quote-cell.js';
import { toE164 } from './phone.js';
import { openZone, TimeZoneError, type Zone } from './time-zone.js';

export type CellReader = (cell: string) => unknown;

/** What a reader returns for a cell its rule's "treatAsEmpty" lists: not given, as an empty cell (never null). */
export const NOT_GIVEN: unique symbol = Symbol('not given');

/** A rule the mapping file states but cannot hold: the message names the option; where the rule is, the caller adds. */
/** The rule key a mapping error is about (its hint points there). */
export type RuleKey =
  | 'type'
  | 'values'
  | 'otherwise'
  | 'defaultRegion'
  | 'format'
  | 'timeZone'
  | 'twoDigitYearStart'
  | 'onInvalid';

export class RuleError extends Error {
  constructor(
    message: string,
    readonly key: RuleKey,
  ) {
    super(message);
  }
}

const TRANSFORM: Record<Transform, (text: string) => string> = {
  trim: (text) => text.trim(),
  lowercase: (text) => text.toLowerCase(),
  uppercase: (text) => text.toUpperCase(),
  collapseSpaces: (text) => text.replace(/\s+/g, ' ').trim(),
};

export function compileCellReader(target: FieldTarget, options: CellOptions = {}): CellReader {
  const read = cellReader(target, options);
  if (!options.treatAsEmpty) return read;
  // looked up as "values" are: trimmed, in any case
  const empty = new Set(options.treatAsEmpty.map((cell) => cell.trim().toLowerCase()));
  return (cell) => (empty.has(cell.toLowerCase()) ? NOT_GIVEN : read(cell));
}

function cellReader(target: FieldTarget, options: CellOptions): CellReader {
  checkOptions(target, options);
  const base = baseReader(target, options);
  const steps: ((text: string) => unknown)[] = [];
  for (const name of options.transform ?? []) steps.push(TRANSFORM[name]);
  if (options.values) steps.push(valuesStep(options.values, options.otherwise, targetPath(target)));
  if (options.convert === 'countryCode') steps.push(countryStep);
  if (options.convert === 'e164') steps.push(phoneStep(options.defaultRegion?.toUpperCase()));
  if (steps.length === 0) return base;
  return (cell) => {
    let text = cell;
    for (let i = 0; i < steps.length; i++) {
      const out = steps[i]!(text);
      if (typeof out !== 'string') return out;
      text = out;
    }
    return base(text);
  };
}

function checkOptions(target: FieldTarget, options: CellOptions): void {
  const path = targetPath(target);
  if (options.type !== undefined && target.kind !== 'customProperties') {
    throw new RuleError(
      `"type" applies only to customProperties.<key> targets (member fields have fixed types; ${path} is read as the API defines it)`,
      'type',
    );
  }
  if (options.onInvalid === 'omit' && (REQUIRED_FIELDS as readonly string[]).includes(path))
    throw new RuleError(
      `"onInvalid": "omit" leaves a field out, and ${path} is required: a record without it cannot be sent`,
      'onInvalid',
    );
  if (options.otherwise !== undefined && options.values === undefined)
    throw new RuleError('"otherwise" needs "values" (it is what a cell the values do not list becomes)', 'otherwise');
  if (options.defaultRegion !== undefined) {
    if (options.convert !== 'e164')
      throw new RuleError(
        '"defaultRegion" applies to "convert": "e164" (the country of a phone number written without +)',
        'defaultRegion',
      );
    if (!isCountryCode(options.defaultRegion.toUpperCase()))
      throw new RuleError(
        `"defaultRegion": "${options.defaultRegion}" is not an ISO 3166-1 alpha-2 country code`,
        'defaultRegion',
      );
  }
  const dated =
    options.format !== undefined || options.timeZone !== undefined || options.twoDigitYearStart !== undefined;
  const dateTarget =
    (target.kind === 'field' && target.type === 'date') ||
    target.kind === 'metadata' ||
    (target.kind === 'customProperties' && target.type === 'string');
  if (dated && !dateTarget)
    throw new RuleError(
      `"format" and "timeZone" read dates, and ${path} is not a date (birthdate, createdAt, or a metadata / customProperties text)`,
      'format',
    );
  if (options.twoDigitYearStart !== undefined && options.format === undefined)
    throw new RuleError('"twoDigitYearStart" needs "format" (with yy)', 'twoDigitYearStart');
}

function baseReader(target: FieldTarget, options: CellOptions): CellReader {
  if (options.format !== undefined || options.timeZone !== undefined) return dateReader(options, targetPath(target));
  switch (target.kind) {
    case 'field':
      return target.type === 'boolean' ? toBoolean : target.type === 'date' ? toDateTime : (cell) => cell;
    case 'customProperties': {
      const type = target.type;
      return type === 'string' ? (cell) => cell : (cell) => coerceCustom(cell, type);
    }
    default:
      return (cell) => cell;
  }
}

function valuesStep(values: Record<string, unknown>, otherwise: unknown, path: string): (text: string) => unknown {
  const required = (REQUIRED_FIELDS as readonly string[]).includes(path);
  const byKey = new Map<string, unknown>();
  const firstKey = new Map<string, string>();
  for (const [key, value] of Object.entries(values)) {
    const folded = key.trim().toLowerCase();
    const earlier = firstKey.get(folded);
    if (earlier !== undefined && !isDeepStrictEqual(byKey.get(folded), value)) {
      throw new RuleError(
        `"values": "${earlier}" and "${key}" are the same key (cells are looked up in any case, trimmed) with different values; keep one`,
        'values',
      );
    }
    firstKey.set(folded, key);
    byKey.set(folded, value);
  }
  const listed =
    Object.keys(values)
      .slice(0, 6)
      .map((k) => `"${k}"`)
      .join(', ') + (byKey.size > 6 ? ', …' : '');
  return (text) => {
    const value = byKey.get(text.toLowerCase());
    // map init's placeholder for a word it could not place: name the word, not only "must not be null"
    if (value === null && required)
      return new CellProblem(
        `${quoteCell(text)} is null in "values", and ${path} is required: say what to send for it`,
        'null in values',
      );
    if (value !== undefined) return value;
    if (otherwise !== undefined) return otherwise;
    return new CellProblem(
      `${quoteCell(text)} is not one of the values the mapping lists (${listed}); add it to "values", or give "otherwise"`,
      'not a listed value',
    );
  };
}

function countryStep(text: string): string | CellProblem {
  if (text.length > CELL_LIMITS.country)
    return new CellProblem(`${tooLong(text, 'a country', CELL_LIMITS.country)}, got ${quoteCell(text)}`, 'too long');
  const country = readCountry(text);
  if (typeof country === 'string') return country;
  if (country) return new CellProblem(`${quoteCell(text)} ${country.message}`, country.rule);
  return new CellProblem(
    `unknown country ${quoteCell(text)}: expected a country name, an ISO 3166-1 alpha-2 or alpha-3 code`,
    'unknown country',
  );
}

function phoneStep(defaultRegion: string | undefined): (text: string) => string | CellProblem {
  return (text) => {
    if (text.length > CELL_LIMITS.phone)
      return new CellProblem(
        `${tooLong(text, 'a phone number', CELL_LIMITS.phone)}, got ${quoteCell(text)}`,
        'too long',
      );
    const number = toE164(text, defaultRegion);
    return typeof number === 'string' ? number : new CellProblem(`${quoteCell(text)}: ${number.message}`, number.rule);
  };
}

/** Local ISO forms "timeZone" reads without a format: 2023-01-05, 2023-01-05 10:22, 2023-01-05T10:22:33.5 */
const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
/** ISO 8601 with its own offset: complete as written (the schema checks it). */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i;

/** `field` names the target, for messages about the format. */
function dateReader(options: CellOptions, field: string): CellReader {
  let zone: Zone | undefined;
  try {
    zone = options.timeZone === undefined ? undefined : openZone(options.timeZone);
  } catch (error) {
    if (error instanceof TimeZoneError) throw new RuleError(`"timeZone": ${error.message}`, 'timeZone');
    throw error;
  }
  const toIso = (p: DateParts) => {
    const local = utcMilliseconds(p);
    const utc = p.offset !== undefined ? local - p.offset * 60_000 : zone ? zone.toUtc(local) : local;
    return new Date(utc).toISOString();
  };
  /**
   * An ISO 8601 cell, read beside any format: it is unambiguous, it is what the API takes, and it is how a workbook's
   * real date cells are read, so a column mixing them with text dates needs one rule. Undefined: not ISO.
   */
  const readIso = (cell: string): string | CellProblem | undefined => {
    const offset = ISO_WITH_OFFSET.exec(cell);
    if (offset) {
      const refusal = offset[1] ? offsetRefusal(Number(offset[1]), Number(offset[2])) : undefined;
      return refusal ? new CellProblem(`${quoteCell(cell)}: ${refusal.reason}`, 'not a real offset') : cell;
    }
    const m = LOCAL_ISO.exec(cell);
    if (!m) return undefined;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map((s) => Number(s ?? 0)) as number[];
    const parts = {
      year: year!,
      month: month!,
      day: day!,
      hour: hour!,
      minute: minute!,
      second: second!,
      millisecond: Number((m[7] ?? '0').padEnd(3, '0')),
    };
    if (!isRealDate(parts)) return new CellProblem(`not a real date-time: ${quoteCell(cell)}`, 'not a real date-time');
    // (without a format, there is always a zone: this reader is only made for "format" or "timeZone")
    if (m[4] !== undefined && !zone)
      return new CellProblem(
        `${quoteCell(cell)} has a time but no offset: add "timeZone" to the rule to say where it was written`,
        'a time without a zone',
      );
    return toIso(parts);
  };
  const tooLongDate = (cell: string) =>
    cell.length > CELL_LIMITS.date
      ? new CellProblem(`${tooLong(cell, 'a date', CELL_LIMITS.date)}, got ${quoteCell(cell)}`, 'too long')
      : undefined;
  // anything else the schema refuses, as without a rule
  if (options.format === undefined) return (cell) => tooLongDate(cell) ?? readIso(cell) ?? cell;
  let format;
  try {
    format = compileDateFormat(options.format, options.twoDigitYearStart, field);
  } catch (error) {
    if (error instanceof DateFormatError) throw new RuleError(error.message, 'format');
    throw error;
  }
  if (format.hasTime && !format.hasOffset && !zone) {
    throw new RuleError(
      `"format": "${options.format}" has a time but no offset (XXX): add "timeZone" (an IANA zone such as "Europe/Oslo", or "UTC") to say where that time was written`,
      'timeZone',
    );
  }
  const pattern = options.format;
  return (cell) => {
    const long = tooLongDate(cell);
    if (long) return long;
    const parts = format.parse(cell);
    if (parts instanceof DateRefusal)
      return new CellProblem(
        `${quoteCell(cell)} is in the format "${pattern}", but ${parts.reason}`,
        'not a real offset',
      );
    if (parts) return toIso(parts);
    return (
      readIso(cell) ??
      new CellProblem(
        `expected a date in the format "${pattern}", got ${quoteCell(cell)}`,
        `not in the format ${pattern}`,
      )
    );
  };
}
