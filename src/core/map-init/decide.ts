/**
 * One column's proposal: the header's guess (exact name, alias, close spelling) checked against what its values
 * are, or, with no guess, what the values alone say. A guess the values contradict is not taken: full names never
 * become firstName, a column of country names is no region, an empty or repeating column is no memberId. What
 * fits no field is kept (metadata as text, customProperties for booleans); only a secret is dropped.
 */
import { byValues, keptRule } from './by-values.js';
import { ZERO_DATE, booleanProposal, dateProposal, withoutZeros } from './propose-rules.js';
import { samplesOf } from './samples.js';
import { guessDateFormat } from './classify/dates.js';
import { type Profile, looksLikeCompany, looksLikeFullName } from './classify/values.js';
import { toCountryCode } from '../mapping/rules/country.js';
import { type Role, guessFromHeader } from './synonyms.js';

export { samplesOf } from './samples.js';

export type Certainty = 'exact' | 'alias' | 'fuzzy' | 'values' | 'kept';

export interface Proposal {
  column: string;
  /** The field it feeds ("email", "metadata.company"), or null: dropped. */
  field: string | null;
  /** The column rule written to the mapping. */
  rule: unknown;
  role?: Role;
  certainty: Certainty;
  /** An inference beyond the name and the values (the plain phone beside a mobile taken for the landline): asked by --interactive. */
  weak?: boolean;
  /** Why, for the notes: what the header and the values said. */
  why: string[];
  /** A question the file cannot answer: the mapping refuses to run until the user settles it. */
  asks?: { kind: 'timeZone' | 'dateOrder' | 'values'; question: string; options?: string[] }[];
  profile: Profile;
  /** The sampled non-empty cells (for questions that show them), and the line each is on. */
  cells: readonly string[];
  lines: readonly number[];
}

const LIMITS: Record<string, number> = {
  memberId: 36,
  email: 256,
  firstName: 64,
  lastName: 64,
  phone: 32,
  homeTelephone: 32,
  selectedStoreId: 64,
  loyaltyProgram: 64,
  nationality: 64,
  'address.zipCode': 8,
  'address.city': 32,
  'address.addressLine1': 128,
  'address.addressLine2': 64,
  'address.region': 32,
  'address.countryCode': 2,
};
const BOOLEAN_FIELDS = new Set(['isActive', 'isEmployee', 'deceased', 'isMembershipFeePaid']);
const DATE_FIELDS = new Set(['createdAt', 'birthdate']);

export function proposeColumn(
  column: string,
  profile: Profile,
  sampled: { cells: readonly string[]; lines: readonly number[] },
  key: string,
): Proposal {
  const guess = guessFromHeader(column);
  const base = { column, profile, ...sampled };
  const keep = (why: string[]): Proposal => ({
    ...base,
    ...keptRule(profile, sampled.cells, key),
    certainty: 'kept',
    why,
  });
  if (guess?.target === 'secret')
    return {
      ...base,
      field: null,
      rule: null,
      certainty: guess.step,
      why: ['its name says it holds a secret: dropped'],
    };
  if (profile.kind === 'empty')
    return keep([`empty in the ${profile.sampled} sampled records: kept in case later ones hold data`]);
  if (!guess) return byValues(base, key, keep);
  const target = guess.target;
  const said = `its name says ${target.startsWith('name.') ? `${target.slice(5)} name` : target} (${guess.step})`;
  const take: Take = (rule, why = [], extra = {}) => ({
    ...base,
    field: typeof rule === 'string' ? rule : String((rule as { field: string }).field),
    rule,
    certainty: guess.step,
    why: [said, ...why],
    ...extra,
  });
  const guessed: Guessed = {
    target,
    said,
    take,
    keep,
    sampled,
    profile,
    column,
    byValues: (why) => byValues(base, key, keep, why),
  };
  return checkWho(guessed) ?? checkWhat(guessed);
}

type Take = (rule: unknown, why?: string[], extra?: Partial<Proposal>) => Proposal;

/** A header's guess and what checking it needs. */
interface Guessed {
  target: string;
  said: string;
  take: Take;
  keep: (why: string[]) => Proposal;
  byValues: (why: string) => Proposal;
  sampled: { cells: readonly string[]; lines: readonly number[] };
  profile: Profile;
  column: string;
}

/** Who the member is: phones, e-mails, names, the id. Undefined when the guess is none of these, or passes. */
function checkWho({ target, said, take, keep, byValues, sampled: { cells }, profile }: Guessed): Proposal | undefined {
  if (target.startsWith('phone.'))
    return profile.kind === 'phone' || profile.kind === 'number'
      ? { ...take('phone'), role: target as Role }
      : keep([`${said}, but its values are not phone numbers`]);
  if (target.startsWith('email.'))
    return profile.kind === 'email'
      ? { ...take('email'), role: target as Role }
      : byValues(`${said}, but its values are not e-mail addresses`);
  if (target === 'name.full' || target === 'name.company')
    return keep([
      `${said}: kept whole in metadata (memberctl does not split names; a full or company name is never a first name)`,
    ]);
  if (target === 'firstName' || target === 'lastName') {
    // "Gail Meyers" or "Grocery Outlet" in a first-name column: a full or company name is never a first name
    // (a last name may have two words: "García Márquez")
    const wrong = cells.filter((c) => looksLikeCompany(c) || (target === 'firstName' && looksLikeFullName(c)));
    if (wrong.length >= cells.length * 0.3)
      return keep([
        `${said}, but ${wrong.length} of its ${cells.length} values are full names or company names (${samplesOf(wrong)}): kept in metadata`,
      ]);
  }
  if (target === 'memberId') {
    const why =
      profile.filled < profile.sampled
        ? `empty in ${profile.sampled - profile.filled} of ${profile.sampled} sampled records`
        : !profile.unique
          ? 'its values repeat'
          : profile.longest > 36
            ? 'values longer than 36 characters'
            : undefined;
    if (why) return keep([`${said}, but it is ${why}: an id must be unique and in every record`]);
  }
  return undefined;
}

/** What the values are: dates, booleans, countries, and the field's length limit. */
function checkWhat({ target, said, take, keep, sampled, profile, column }: Guessed): Proposal {
  const { cells } = sampled;
  if (DATE_FIELDS.has(target)) {
    // the name says date: 80% of the cells read as dates is enough (the others are named, and refused until fixed);
    // zero dates ("0000-00-00") are the export's empty date: the format is read from the others
    const zeros = cells.filter((c) => ZERO_DATE.test(c));
    const real = zeros.length === 0 ? sampled : withoutZeros(sampled);
    const date = zeros.length === 0 && profile.date ? profile.date : guessDateFormat(real.cells);
    return date
      ? dateProposal(take, target, { ...profile, date }, real, column, zeros)
      : keep([`${said}, but its values are not dates`]);
  }
  if (BOOLEAN_FIELDS.has(target)) return booleanProposal(take, keep, target, said, cells, column);
  if (target === 'address.region' && profile.kind === 'country' && !profile.alpha2)
    return take({ field: 'address.countryCode', convert: 'countryCode' }, ['but its values are country names']);
  if (target === 'address.countryCode') {
    // a cell "countryCode" cannot read is refused by name (never stored wrong): half the cells known is enough
    const known = cells.filter((c) => toCountryCode(c) !== undefined).length;
    if (known < cells.length / 2)
      return keep([`${said}, but most of its values are not countries (${samplesOf(cells)})`]);
    return take(profile.alpha2 ? target : { field: target, convert: 'countryCode' }, [
      `${known} of ${cells.length} values are countries${profile.alpha2 ? ' (alpha-2 codes)' : ': converted'}`,
    ]);
  }
  const limit = LIMITS[target];
  if (limit !== undefined && profile.longest > limit)
    return keep([`${said}, but some values are longer than the field takes (${limit})`]);
  return take(target);
}
