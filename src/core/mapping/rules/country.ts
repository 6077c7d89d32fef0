/**
 * `"convert": "countryCode"`: a country as exports write it (an English name or a common variant such as "USA",
 * "UK" or "South Korea", the name in a few European languages, an alpha-3 or alpha-2 code) to ISO 3166-1 alpha-2,
 * through i18n-iso-countries (names and codes kept by its maintainers). Loaded on first use: most runs need none.
 *
 * Nothing is guessed (docs/decisions.md): a code is read in upper or lower case, not mixed ("No" is a word); the
 * words exports write for "no value" (na, n/a, none, no, unknown, …) are refused as no country, except "NO" in
 * upper case (Norway), and "NA" is refused in any case (Namibia, or "not available"); a name that names several
 * places (Congo, Korea, Virgin Islands, Georgia) is refused naming them.
 *
 * The names of every language are read once into one table (a lookup per cell, not a walk over 3,000 names), and
 * answers are cached per distinct cell (a file names few countries, over and over), at most CACHE_LIMIT of them.
 */
import { createRequire } from 'node:module';

type Countries = typeof import('i18n-iso-countries');

/** Looked up after English, for exports written in these languages (Deutschland, España, Sverige, …). */
const OTHER_LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'nb', 'da', 'fi', 'pl'];
export const COUNTRY_CACHE_LIMIT = 10_000;

/** Why a cell is no country: `rule` is free of the cell (for counting reasons), `message` explains it. */
export interface CountryRefusal {
  rule: string;
  message: string;
}

/** What exports write for "no value" (compared lower-cased): no country, however a code list reads them. */
const NO_COUNTRY = new Set(['na', 'n/a', 'n.a.', 'n.a', 'none', 'no', 'unknown', 'null', 'nil', '-', '--', '?']);

/** Names that name more than one place: refused, naming them (the library's own shared names are found too). */
const AMBIGUOUS: Record<string, string> = {
  korea: 'KR (South Korea) or KP (North Korea)',
  'virgin islands': 'VG (British Virgin Islands) or VI (U.S. Virgin Islands)',
  georgia: 'GE (the country) or the US state',
};

interface Table {
  lib: Countries;
  /** Normalised name → the codes it names, in the first language that has it. */
  names: Map<string, string[]>;
}

let table: Table | undefined;
function countries(): Table {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const lib = require('i18n-iso-countries') as Countries;
  const names = new Map<string, string[]>();
  for (const language of ['en', ...OTHER_LANGUAGES]) {
    lib.registerLocale(require(`i18n-iso-countries/langs/${language}.json`));
    const found = new Map<string, string[]>();
    for (const [code, list] of Object.entries(lib.getNames(language, { select: 'all' })))
      for (const name of list) {
        const key = normalised(name);
        const codes = found.get(key) ?? [];
        if (!codes.includes(code)) codes.push(code);
        found.set(key, codes);
      }
    // an earlier language keeps its reading of a name (English first, as before)
    for (const [key, codes] of found) if (!names.has(key)) names.set(key, codes);
  }
  return (table = { lib, names });
}

/** What editors do to names undone (’ for ', decomposed accents, doubled spaces), in lower case. */
function normalised(name: string): string {
  return name
    .normalize('NFC')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

const cache = new Map<string, string | CountryRefusal | null>();

/** The alpha-2 code, or why the cell is refused; undefined when it names no country the library knows. */
export function readCountry(cell: string): string | CountryRefusal | undefined {
  let answer = cache.get(cell);
  if (answer === undefined) {
    answer = lookUp(cell) ?? null;
    if (cache.size >= COUNTRY_CACHE_LIMIT) cache.clear();
    cache.set(cell, answer);
  }
  return answer ?? undefined;
}

/** The alpha-2 code, or undefined when the cell names no one country (map init's test of a column). */
export function toCountryCode(cell: string): string | undefined {
  const answer = readCountry(cell);
  return typeof answer === 'string' ? answer : undefined;
}

/** Exactly in upper or in lower case: "No", "Us" and "Can" are words more likely than codes. */
const oneCase = (text: string) => text === text.toUpperCase() || text === text.toLowerCase();

function lookUp(cell: string): string | CountryRefusal | undefined {
  const { lib, names } = countries();
  const upper = cell.toUpperCase();
  const lower = normalised(cell);
  if (lower === 'na')
    return {
      rule: 'not a country',
      message: 'is Namibia\'s code and also "not available": write "NAM" or "Namibia" for the country',
    };
  if (NO_COUNTRY.has(lower) && cell !== 'NO')
    return {
      rule: 'not a country',
      message: 'means no value, not a country: leave the cell empty, or list it in "treatAsEmpty"',
    };
  if (/^[A-Z]{2}$/.test(upper) && oneCase(cell) && lib.isValid(upper)) return upper;
  if (/^[A-Z]{3}$/.test(upper) && oneCase(cell)) {
    const alpha2 = lib.alpha3ToAlpha2(upper);
    if (alpha2) return alpha2;
  }
  const ambiguous = AMBIGUOUS[lower];
  const codes = names.get(lower);
  if (ambiguous !== undefined || (codes && codes.length > 1))
    return {
      rule: 'ambiguous country',
      message: `names more than one place (${ambiguous ?? codes!.map((code) => `${code} (${lib.getName(code, 'en')})`).join(' or ')}): write the code`,
    };
  return codes?.[0];
}

/** True when `code` is an ISO 3166-1 alpha-2 code (checks a mapping file's defaultRegion). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries().lib.isValid(code);
}

/** The English name of an alpha-2 code (Sweden), for messages. */
export function countryName(code: string): string | undefined {
  return countries().lib.getName(code, 'en');
}
