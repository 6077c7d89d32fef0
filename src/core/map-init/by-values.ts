/**
 * The waterfall's last step and the keeping of what fits no field: with no header guess (or one the values refuse),
 * the values decide (e-mail addresses, countries); anything else is kept, in metadata as text or, for a yes/no
 * column, in customProperties typed boolean.
 */
import { readsAsBoolean, valuesMap } from './classify/booleans.js';
import type { Profile } from './classify/values.js';
import type { Proposal } from './decide.js';

/** The waterfall's last step: no header guess (or one the values refuse), so the values decide. */
export function byValues(
  base: Pick<Proposal, 'column' | 'profile' | 'cells' | 'lines'>,
  key: string,
  keep: (why: string[]) => Proposal,
  said?: string,
): Proposal {
  const { profile } = base;
  const prefix = said ? [said] : [];
  if (profile.kind === 'email' && !said)
    return {
      ...base,
      field: 'email',
      rule: 'email',
      role: 'email.alternative',
      certainty: 'values',
      why: ['its values are e-mail addresses'],
    };
  // country names only: two letters alone may be US states as well as countries (CA, DE, IN, PA, GA)
  if (profile.kind === 'country' && !profile.alpha2 && !said)
    return {
      ...base,
      field: 'address.countryCode',
      rule: { field: 'address.countryCode', convert: 'countryCode' },
      certainty: 'values',
      why: ['its values are country names'],
    };
  return keep([...prefix, `its values are ${describeKind(profile)}: kept`]);
}

function describeKind(profile: Profile): string {
  return {
    empty: 'empty',
    date: 'dates',
    boolean: 'yes/no values',
    email: 'e-mail addresses',
    phone: 'phone numbers',
    country: 'countries',
    number: 'numbers',
    url: 'web addresses',
    company: 'company names',
    fullName: 'full names',
    word: 'single words',
    text: 'text',
  }[profile.kind];
}

/** Where a column that fits no field goes: customProperties for a yes/no column (typed), metadata for the rest (text as written). */
export function keptRule(profile: Profile, cells: readonly string[], key: string): { field: string; rule: unknown } {
  if (profile.kind !== 'boolean') return { field: `metadata.${key}`, rule: `metadata.${key}` };
  const field = `customProperties.${key}`;
  return readsAsBoolean(cells)
    ? { field, rule: { field, type: 'boolean' } }
    : { field, rule: { field, type: 'boolean', values: valuesMap(cells) } };
}
