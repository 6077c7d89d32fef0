/**
 * `"convert": "countryCode"`: a country as exports write it (an English name or a common variant such as "USA",
 * "UK" or "South Korea", the name in a few European languages, an alpha-3 or alpha-2 code) to ISO 3166-1 alpha-2,
 * through i18n-iso-countries (names and codes kept by its maintainers). Loaded on first use: most runs need none.
 * Answers are cached per distinct cell (a file names few countries, over and over).
 */
import { createRequire } from 'node:module';

type Countries = typeof import('i18n-iso-countries');

/** Looked up after English, for exports written in these languages (Deutschland, España, Sverige, …). */
const OTHER_LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'nb', 'da', 'fi', 'pl'];
const CACHE_LIMIT = 10_000;

let library: Countries | undefined;
function countries(): Countries {
  if (library) return library;
  const require = createRequire(import.meta.url);
  const loaded = require('i18n-iso-countries') as Countries;
  for (const language of ['en', ...OTHER_LANGUAGES])
    loaded.registerLocale(require(`i18n-iso-countries/langs/${language}.json`));
  return (library = loaded);
}

const cache = new Map<string, string | null>();

/** The alpha-2 code, or undefined when the cell names no country the library knows. */
export function toCountryCode(cell: string): string | undefined {
  let code = cache.get(cell);
  if (code === undefined) {
    code = lookUp(cell) ?? null;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(cell, code);
  }
  return code ?? undefined;
}

function lookUp(cell: string): string | undefined {
  const lib = countries();
  const upper = cell.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && lib.isValid(upper)) return upper;
  if (/^[A-Z]{3}$/.test(upper)) {
    const alpha2 = lib.alpha3ToAlpha2(upper);
    if (alpha2) return alpha2;
  }
  // the library compares names exactly: undo what editors do to them (’ for ', decomposed accents, doubled spaces)
  const name = cell
    .normalize('NFC')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, ' ');
  for (const language of ['en', ...OTHER_LANGUAGES]) {
    const alpha2 = lib.getAlpha2Code(name, language);
    if (alpha2) return alpha2;
  }
  return undefined;
}

/** True when `code` is an ISO 3166-1 alpha-2 code (checks a mapping file's defaultRegion). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries().isValid(code);
}

/** The English name of an alpha-2 code (Sweden), for messages. */
export function countryName(code: string): string | undefined {
  return countries().getName(code, 'en');
}
