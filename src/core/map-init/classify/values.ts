/**
 * What a column holds, read from its sampled cells alone: the waterfall's last step, and the check on the header's
 * guess. Deterministic rules on the values (no model, no network): a kind is given when at least 90% of the
 * non-empty cells have it (one stray cell in an export should not hide the column's kind).
 */
import { type DateGuess, guessDateFormat } from './dates.js';
import { toCountryCode } from '../../mapping/rules/country.js';
import { booleanSpelling } from './booleans.js';

export type ValueKind =
  | 'empty'
  | 'date'
  | 'boolean'
  | 'email'
  | 'phone'
  | 'country'
  | 'number'
  | 'url'
  | 'company'
  | 'fullName'
  | 'word'
  | 'text';

export interface Profile {
  kind: ValueKind;
  /** Sampled records, and those with a non-empty cell in this column. */
  sampled: number;
  filled: number;
  /** Distinct non-empty cells (up to 50 kept, first seen first) and whether every cell is distinct. */
  distinct: string[];
  unique: boolean;
  longest: number;
  /** For a date column: its format, whether it carries a time and an offset. */
  date?: DateGuess;
  /** For a country column: whether every cell is already an alpha-2 code. */
  alpha2?: boolean;
}

const ENOUGH = 0.9;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL = /^(https?:\/\/|www\.)\S+$/i;
const NUMBER = /^[+-]?\d+([.,]\d+)?$/;
/** Digits with the separators phone numbers are written with, an optional + or 00 prefix and an extension. */
const PHONE = /^(\+|00)?[\d\s().\-/]{6,}(\s*(x|ext\.?)\s*\d{1,6})?$/i;
/** Legal forms and words that name a business, not a person. */
const COMPANY =
  /(\b(inc|llc|ltd|limited|plc|corp|corporation|co|company|group|holdings?|gmbh|ag|kg|ohg|ug|e\.?v|sarl|sas|sa|srl|spa|bv|nv|as|asa|ab|oy|aps|lda|sl|consulting|services|solutions|partners|logistics|bakery|dental|studio|shop|store|bank|foundation|association|verein)\b\.?|&|\band\b)/i;
/** Digits split into day, month and year, or a month's name beside digits: what a date cell looks like. */
const DATE_LIKE =
  /\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|\d\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
const PERSON_WORD = /^\p{Lu}[\p{L}'’.-]*$/u;

export function profileColumn(cells: readonly string[], sampled: number): Profile {
  const distinct = new Set(cells);
  const profile: Profile = {
    kind: 'empty',
    sampled,
    filled: cells.length,
    distinct: [...distinct].slice(0, 50),
    unique: distinct.size === cells.length,
    longest: cells.reduce((n, c) => Math.max(n, c.length), 0),
  };
  if (cells.length === 0) return profile;
  const share = (test: (cell: string) => boolean) => cells.filter(test).length / cells.length;
  const values = [...distinct];
  if (values.length <= 2 && values.every((v) => booleanSpelling(v) !== undefined) && bothSides(values))
    return { ...profile, kind: 'boolean' };
  if (share((c) => EMAIL.test(c)) >= ENOUGH) return { ...profile, kind: 'email' };
  if (share((c) => URL.test(c)) >= ENOUGH) return { ...profile, kind: 'url' };
  // the formats are tried only on a column whose cells look like dates: 40 text columns would cost a second
  const date = share((c) => DATE_LIKE.test(c)) >= ENOUGH ? guessDateFormat(cells) : undefined;
  if (date && date.misses.length / cells.length <= 1 - ENOUGH + 1e-9) return { ...profile, kind: 'date', date };
  if (share((c) => NUMBER.test(c)) >= ENOUGH) return { ...profile, kind: 'number' };
  if (share((c) => PHONE.test(c) && c.replace(/\D/g, '').length >= 7) >= ENOUGH) return { ...profile, kind: 'phone' };
  if (share((c) => c.length > 3 && toCountryCode(c) !== undefined) >= ENOUGH)
    return { ...profile, kind: 'country', alpha2: false };
  if (share((c) => /^[A-Za-z]{2}$/.test(c) && toCountryCode(c) !== undefined) >= ENOUGH)
    return { ...profile, kind: 'country', alpha2: true };
  if (share(looksLikeCompany) >= 0.2) return { ...profile, kind: 'company' };
  if (share(looksLikeFullName) >= 0.5) return { ...profile, kind: 'fullName' };
  if (share((c) => !/\s/.test(c)) >= ENOUGH) return { ...profile, kind: 'word' };
  return { ...profile, kind: 'text' };
}

/** Two or more capitalised words, as "Gail Meyers" or "Anna-Lena de Vries" (a first name alone is one word). */
export function looksLikeFullName(cell: string): boolean {
  const words = cell.split(/\s+/).filter((w) => !/^(de|da|van|von|der|den|del|la|le|di|du|dos|das|y|e)$/.test(w));
  return words.length >= 2 && words.length <= 4 && words.every((w) => PERSON_WORD.test(w));
}

/**
 * A legal form or business word, in a cell without `@`: `asa@firma.no` and `x@y.co` hold "asa" and "co" but are
 * (broken) e-mail addresses, never company names (trial2: an e-mail column of typos was called company names).
 */
export function looksLikeCompany(cell: string): boolean {
  return !cell.includes('@') && COMPANY.test(cell);
}

/** A pair of spellings that are each other's opposite (yes/no), or one spelling of either kind. */
function bothSides(values: readonly string[]): boolean {
  const meanings = values.map((v) => booleanSpelling(v));
  if (values.length === 2) return meanings[0] !== meanings[1];
  // a single value is a boolean column only when spelt as nothing else can be: "true", "no"; not "1" (a count),
  // "ON" (Ontario) or "x"
  return /^(true|false|yes|no|ja|nein|oui|non|sí|si|sim|não|nao|waar|onwaar|wahr|falsch|verdadero|falso)$/i.test(
    values[0]!,
  );
}
