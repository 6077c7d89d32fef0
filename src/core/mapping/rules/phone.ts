/**
 * `"convert": "e164"`: a phone number as people write it ("(212) 555-0100", "0701 23 45 67", "+46 70 123 45 67")
 * to E.164 ("+12125550100") through libphonenumber-js with its full metadata, so a number that cannot exist in
 * its country is refused rather than passed on. A number without a country prefix is read in `defaultRegion`.
 * Loaded on first use.
 */
import { createRequire } from 'node:module';

type PhoneLib = typeof import('libphonenumber-js/max');

let library: PhoneLib | undefined;
function phones(): PhoneLib {
  return (library ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneLib);
}

/** The number in E.164, or undefined when it is not a valid number (in defaultRegion, without a + prefix). */
export function toE164(cell: string, defaultRegion: string | undefined): string | undefined {
  const parsed = phones().parsePhoneNumberFromString(
    cell,
    defaultRegion as Parameters<PhoneLib['parsePhoneNumberFromString']>[1],
  );
  return parsed?.isValid() ? parsed.number : undefined;
}
