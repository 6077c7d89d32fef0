/**
 * What `map init` guesses from a column's name and its first cells: the field it most likely feeds, a date
 * format that reads every sampled cell, a `values` map for a status column, whether country names need converting.
 */
import { Problem, toBoolean } from '../mapping/coerce.js';
import { compileDateFormat } from '../mapping/rules/date-format.js';
import { closestField, normalizeName, resolveTarget, targetPath } from '../mapping/targets.js';
import { isKnownName, REQUIRED_FIELDS } from '../mapping/required-fields.js';

/** Names exports give fields, beyond the API's own (matched leniently, on the whole name or its last dotted part). */
const SYNONYMS: Record<string, string> = {
  emailaddress: 'email',
  mail: 'email',
  workemail: 'email',
  primaryemail: 'email',
  givenname: 'firstName',
  forename: 'firstName',
  first: 'firstName',
  surname: 'lastName',
  familyname: 'lastName',
  last: 'lastName',
  mobile: 'phone',
  mobilephone: 'phone',
  cellphone: 'phone',
  phonenumber: 'phone',
  telephone: 'phone',
  tel: 'phone',
  homephone: 'homeTelephone',
  dateofbirth: 'birthdate',
  dob: 'birthdate',
  birthday: 'birthdate',
  born: 'birthdate',
  street: 'address.addressLine1',
  streetaddress: 'address.addressLine1',
  address1: 'address.addressLine1',
  address: 'address.addressLine1',
  address2: 'address.addressLine2',
  postcode: 'address.zipCode',
  postalcode: 'address.zipCode',
  zip: 'address.zipCode',
  city: 'address.city',
  town: 'address.city',
  state: 'address.region',
  province: 'address.region',
  county: 'address.region',
  zippostalcode: 'address.zipCode',
  aptsuite: 'address.addressLine2',
  apartment: 'address.addressLine2',
  stateregion: 'address.region',
  country: 'address.countryCode',
  countrycode: 'address.countryCode',
  gender: 'genderId',
  store: 'selectedStoreId',
};

const GENERIC = /^(value|text|number|data)$/i;

/** The field a header most likely feeds, or undefined. */
export function guessTarget(header: string): string | undefined {
  const exact = resolveTarget(header);
  if (exact) return targetPath(exact);
  // "contact.phones.0" is a phone: the last part that is not an array index names the value
  const parts = header.split('.').filter((part) => !/^\d+$/.test(part));
  // "contact.emails.0.value": a generic last part is named by its parent
  const last =
    parts.length > 1 && GENERIC.test(parts[parts.length - 1]!) ? parts[parts.length - 2]! : (parts.pop() ?? header);
  // "Active?", "Zip/Postal Code": punctuation says nothing about the field
  const names = [header, last].map((name) =>
    normalizeName(name)
      .replace(/[^\p{L}\p{N}]/gu, '')
      .replace(/(email|phone)s$/, '$1'),
  );
  const synonym = names.map((name) => SYNONYMS[name]).find(Boolean);
  if (synonym) return synonym;
  for (const field of REQUIRED_FIELDS) if (names.some((name) => isKnownName(field, name))) return field;
  const plain = names.map((name) => resolveTarget(name)).find(Boolean);
  if (plain) return targetPath(plain);
  const close = closestField(last);
  return close !== undefined && close.length > 3 ? close : undefined;
}

/** Patterns tried on a date column's cells, most specific and most common first; dd/MM before MM/dd. */
const DATE_PATTERNS = [
  "yyyy-MM-dd'T'HH:mm:ss.SSS",
  "yyyy-MM-dd'T'HH:mm:ss",
  'yyyy-MM-dd HH:mm:ss',
  'yyyy-MM-dd HH:mm',
  'yyyy/MM/dd HH:mm',
  'yyyy/MM/dd',
  'dd-MM-yyyy HH:mm',
  'dd-MM-yyyy',
  'dd.MM.yyyy HH:mm',
  'dd.MM.yyyy',
  'dd/MM/yyyy HH:mm',
  'dd/MM/yyyy',
  'MM/dd/yyyy HH:mm',
  'MM/dd/yyyy',
  'M/d/yyyy h:mm a',
  'M/d/yyyy H:mm',
  'M/d/yyyy',
  'd/M/yyyy',
  'M/d/yy',
  'd.M.yy',
  'd MMM yyyy',
  'MMM d, yyyy',
  'MMMM d, yyyy',
].map((pattern) => compileDateFormat(pattern));

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export interface DateGuess {
  /** The format of the cells that are not ISO 8601 (a mapping's date rule reads ISO beside its format). */
  format?: string;
  /** Times without an offset (in the format or in ISO cells): the cells are local times and need a zone. */
  local: boolean;
  /** Indexes of the sampled cells nothing reads (a typo in the export, or 31-02: worth a look). */
  misses: number[];
  /** Cells already ISO 8601 (a workbook's real date cells come so), and the rest (text, in `format` or missed). */
  iso: number;
  text: number;
}

/** Most cells a guess must read: one bad date in an export should not hide its format. */
const READS = 0.8;

/**
 * How a date column reads: ISO cells as they are, the others in the format that reads most of them; undefined
 * when less than 80% of the sample is read (not a date column).
 */
export function guessDateFormat(cells: readonly string[]): DateGuess | undefined {
  if (cells.length === 0) return undefined;
  const isIso = (c: string) => ISO_DATE.test(c) || ISO_WITH_OFFSET.test(c) || ISO_LOCAL.test(c);
  const text = cells.filter((c) => !isIso(c));
  let best: { format: (typeof DATE_PATTERNS)[number]; reads: number } | undefined;
  for (const format of text.length > 0 ? DATE_PATTERNS : []) {
    const reads = text.filter((c) => format.parse(c) !== undefined).length;
    if (!best || reads > best.reads) best = { format, reads };
    if (reads === text.length) break;
  }
  const format = best && best.reads > 0 ? best.format : undefined;
  const iso = cells.length - text.length;
  if (iso + (format ? best!.reads : 0) < cells.length * READS) return undefined;
  const misses: number[] = [];
  cells.forEach((c, i) => {
    if (!isIso(c) && format?.parse(c) === undefined) misses.push(i);
  });
  const local = cells.some((c) => ISO_LOCAL.test(c)) || (format !== undefined && format.hasTime && !format.hasOffset);
  return { format: format?.pattern, local, misses, iso, text: text.length };
}

const TRUE_WORDS = /^(active|enabled|current|subscribed|member|live|open|valid|customer|paid)$/i;
const FALSE_WORDS =
  /^(inactive|disabled|lapsed|cancell?ed|expired|churned|closed|unsubscribed|suspended|deleted|former|lead)$/i;

/** A values map for a boolean field whose cells are words, not true/false; undefined when they read as booleans. */
export function guessValues(cells: readonly string[]): Record<string, boolean | null> | undefined {
  // keys match in any case: one key per spelling
  const byLower = new Map<string, string>();
  for (const cell of cells) if (!byLower.has(cell.toLowerCase())) byLower.set(cell.toLowerCase(), cell.toLowerCase());
  const distinct = [...byLower.values()];
  if (distinct.every((c) => !(toBoolean(c) instanceof Problem))) return undefined;
  const values: Record<string, boolean | null> = {};
  for (const cell of distinct.slice(0, 12)) {
    const asBoolean = toBoolean(cell);
    values[cell] = !(asBoolean instanceof Problem)
      ? asBoolean
      : TRUE_WORDS.test(cell)
        ? true
        : FALSE_WORDS.test(cell)
          ? false
          : null;
  }
  return values;
}

/**
 * True when a cell is not an alpha-2 code: the API refuses it as it is, and "countryCode" reads names and alpha-3
 * codes, and names the cell it cannot read ("unknown country") instead of "at most 2 characters".
 */
export function needsCountryConversion(cells: readonly string[]): boolean {
  return cells.some((c) => !/^[A-Za-z]{2}$/.test(c));
}
