/**
 * The upsert item's schema as one straight check, for the item a CSV row maps to: true only when zod's parse of
 * memberUpsertItemSchema accepts the value and gives it back unchanged (the same keys and values; zod's copy
 * orders them as the schema does). It allocates nothing, where zod's parse copies the item and its address: on
 * import and validate that copy was made for every row. False means zod decides, and explains: an invalid item,
 * or one unusual enough to leave to zod (an object that is not a plain one, a key present as undefined).
 * test/schemas/member-check.test.ts holds the two together on any input. It needs no zod (member-fields.ts): the CSV
 * worker runs it on the rows it encodes.
 */
import { DATE_TIME, isJsonValue, isPlainRecord } from './member-fields.js';

/** An object as `{}` makes one: zod's copy of the item and of its address is one. */
const isObjectLiteral = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** How many keys `for…in` yields (own and inherited enumerable): what zod's strict check walks. */
function keyCount(value: object): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

/** zod measures a string in code points (a surrogate pair is one), counted only when its UTF-16 units exceed `max`. */
function fits(text: string, max: number): boolean {
  if (text.length <= max) return true;
  let points = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) points--, i++;
  }
  return points <= max;
}

/**
 * Each optional field counts 0 when absent, 1 when valid, NaN when not: the item's count of valid fields then
 * equals its count of keys only when every key is a known field with a valid value (zod's strict object).
 */
const INVALID = Number.NaN;
/** `nullableMax(max)`: null, or a string of at most `max` characters. */
const text = (value: unknown, max: number) =>
  value === undefined ? 0 : value === null || (typeof value === 'string' && fits(value, max)) ? 1 : INVALID;
const dateTime = (value: unknown) =>
  value === undefined ? 0 : value === null || (typeof value === 'string' && DATE_TIME.test(value)) ? 1 : INVALID;
const flag = (value: unknown, nullable: boolean) =>
  value === undefined ? 0 : value === true || value === false || (nullable && value === null) ? 1 : INVALID;

function address(value: unknown): number {
  if (value === undefined) return 0;
  if (!isObjectLiteral(value)) return INVALID;
  const valid =
    text(value.zipCode, 8) +
    text(value.city, 32) +
    text(value.addressLine1, 128) +
    text(value.addressLine2, 64) +
    text(value.region, 32) +
    text(value.countryCode, 2);
  return keyCount(value) === valid ? 1 : INVALID;
}

/** metadata (string or null values) or customProperties (JSON values within the nesting bound), or null. */
function dataMap(value: unknown, custom: boolean): number {
  if (value === undefined) return 0;
  if (value === null) return 1;
  if (!isPlainRecord(value)) return INVALID;
  // every key for…in gives: the own ones zod checks, and (never in practice) inherited ones, which only make it stricter
  for (const key in value) {
    const entry = value[key];
    if (custom ? !isJsonValue(entry) : entry !== null && typeof entry !== 'string') return INVALID;
  }
  return 1;
}

/** True only when zod accepts `value` as an upsert item and gives back the same keys and values. */
export function isMemberItem(value: unknown): boolean {
  if (!isObjectLiteral(value)) return false;
  const { memberId, isActive, createdAt } = value;
  if (typeof memberId !== 'string' || memberId.length === 0 || !fits(memberId, 36)) return false;
  if (isActive !== true && isActive !== false) return false;
  if (typeof createdAt !== 'string' || !DATE_TIME.test(createdAt)) return false;
  const valid =
    3 +
    text(value.email, 256) +
    text(value.firstName, 64) +
    text(value.lastName, 64) +
    text(value.phone, 32) +
    dateTime(value.birthdate) +
    address(value.address) +
    text(value.genderId, Infinity) +
    text(value.selectedStoreId, 64) +
    text(value.loyaltyProgram, 64) +
    flag(value.isEmployee, false) +
    text(value.nationality, 64) +
    dataMap(value.metadata, false) +
    flag(value.deceased, true) +
    text(value.homeTelephone, 32) +
    flag(value.isMembershipFeePaid, true) +
    dataMap(value.customProperties, true);
  // strict: a key the schema does not know (or one present as undefined) is zod's to judge
  return keyCount(value) === valid;
}
