/**
 * `"convert": "e164"`: a phone number as people write it ("(212) 555-0100", "0701 23 45 67", "+46 70 123 45 67")
 * to E.164 ("+12125550100") through libphonenumber-js with its full metadata, so a number that cannot exist in
 * its country is refused rather than passed on, saying why: too short or too long for that country, not a number
 * that country has, a calling code no country has, or no country code at all. A number without a country prefix
 * is read in `defaultRegion`. Loaded on first use.
 */
import { createRequire } from 'node:module';
import { countryName } from './country.js';

type PhoneLib = typeof import('libphonenumber-js/max');
type Region = Parameters<PhoneLib['parsePhoneNumberFromString']>[1];

let library: PhoneLib | undefined;
function phones(): PhoneLib {
  return (library ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneLib);
}

/** Why a cell is no phone number: `rule` is free of the cell (for counting reasons), `message` explains it. */
export interface PhoneProblem {
  rule: string;
  message: string;
}

/** The number in E.164, or why it is none (in defaultRegion, without a + prefix). */
export function toE164(cell: string, defaultRegion: string | undefined): string | PhoneProblem {
  const lib = phones();
  const parsed = lib.parsePhoneNumberFromString(cell, defaultRegion as Region);
  if (parsed?.isValid()) return lostParts(cell, parsed.ext) ?? parsed.number;
  const length = lib.validatePhoneNumberLength(cell, defaultRegion as Region);
  const where = parsed
    ? callingCodeCountries(parsed.country, parsed.countryCallingCode, parsed.getPossibleCountries())
    : undefined;
  switch (length) {
    case 'NOT_A_NUMBER':
      return { rule: 'not a phone number', message: 'not a phone number' };
    case 'INVALID_COUNTRY':
      return /^\s*(\+|00)/.test(cell)
        ? { rule: 'unknown calling code', message: 'its country calling code is not one any country has' }
        : {
            rule: 'no country code',
            message: 'it has no + country code: write the number with one (+47 …), or set "defaultRegion"',
          };
    case 'TOO_SHORT':
      return { rule: 'phone too short', message: `too short for a phone number${where ? ` ${where}` : ''}` };
    case 'TOO_LONG':
      return { rule: 'phone too long', message: `too long for a phone number${where ? ` ${where}` : ''}` };
    case 'INVALID_LENGTH':
      return { rule: 'phone length', message: `not a length phone numbers have${where ? ` ${where}` : ''}` };
    default:
      return {
        rule: 'not a valid number for its country',
        message: `not a valid number${where ? ` ${where}` : ''}: no number there is written so`,
      };
  }
}

/** What a phone number is written with (dashes as word processors make them too); any other character is text beside it (a label, a note, a second number). */
const PHONE_CHARACTERS = /[^\d\s+\-\u2010-\u2015\u2212.()/]+/g;

/**
 * The library reads a number out of text around it and keeps an extension apart: E.164 has room for neither, so a
 * cell with one is refused, naming what would be lost ("onInvalid": "omit" leaves such a phone out instead).
 */
function lostParts(cell: string, extension: string | undefined): PhoneProblem | undefined {
  if (extension)
    return {
      rule: 'phone extension',
      message: `its extension ${extension} would be lost: E.164 has no room for one (write the extension elsewhere, or "onInvalid": "omit")`,
    };
  const text = cell.match(PHONE_CHARACTERS);
  if (!text) return undefined;
  const shown = text.slice(0, 3).map((part) => JSON.stringify(part.length > 20 ? `${part.slice(0, 20)}…` : part));
  return {
    rule: 'text beside the phone',
    message: `it holds text beside the number (${shown.join(', ')}${text.length > 3 ? ', …' : ''}), which would be lost: E.164 is the number alone`,
  };
}

/** `in Sweden (+46)`, or for a calling code several countries share, `for calling code +1 (US, AG, AI, … 25 countries)`. */
function callingCodeCountries(country: string | undefined, code: string, sharing: readonly string[]): string {
  if (country) return `in ${countryName(country) ?? country} (+${code})`;
  // the library's metadata order: the code's main country first
  const listed = sharing.slice(0, 3).join(', ') + (sharing.length > 3 ? `, … ${sharing.length} countries` : '');
  return `for calling code +${code}${sharing.length > 0 ? ` (${listed})` : ''}`;
}
