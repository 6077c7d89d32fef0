/**
 * What the CSV mapping and the compiled check (member-check.ts) need to know of the upsert item without zod: its
 * fields in the API's order, which of them take null, zod's date-time pattern, what counts as plain data. The CSV
 * worker maps and checks rows with these alone, so its isolate loads no zod (issue 28: zod and its built schemas
 * were 6–7 MB of the import's peak RSS there). member.ts builds the schemas; test/schemas/member-fields.test.ts
 * holds each of these equal to what those schemas say, so the two cannot drift.
 */
import type { Address, MemberUpsertItem } from './member.js';
import { CUSTOM_VALUE_LEVELS } from './json-depth.js';

/** Field names of the upsert item, in the API's order (memberUpsertItemSchema's shape). */
export const MEMBER_FIELDS: (keyof MemberUpsertItem)[] = [
  'memberId',
  'email',
  'firstName',
  'lastName',
  'phone',
  'birthdate',
  'address',
  'isActive',
  'createdAt',
  'genderId',
  'selectedStoreId',
  'loyaltyProgram',
  'isEmployee',
  'nationality',
  'metadata',
  'deceased',
  'homeTelephone',
  'isMembershipFeePaid',
  'customProperties',
];

/** Field names of the address, in the API's order (addressSchema's shape). */
export const ADDRESS_FIELDS: (keyof Address)[] = [
  'zipCode',
  'city',
  'addressLine1',
  'addressLine2',
  'region',
  'countryCode',
];

/** The item's fields that never take null: an upsert cannot clear them. */
const NEVER_NULL: ReadonlySet<string> = new Set<keyof MemberUpsertItem>([
  'memberId',
  'address',
  'isActive',
  'createdAt',
  'isEmployee',
]);

/** The item's fields that take null (it clears them): all the others, in the API's order. */
export const NULLABLE_FIELDS: ReadonlySet<string> = new Set(MEMBER_FIELDS.filter((field) => !NEVER_NULL.has(field)));

/** zod's pattern for `z.iso.datetime({ offset: true })` (createdAt, birthdate), as zod 4 builds it. */
export const DATE_TIME =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/;

export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True for a value JSON can carry, within the nesting bound: what customProperties may hold (quick path of jsonValueSchema). */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (depth >= CUSTOM_VALUE_LEVELS) return false;
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  return isPlainRecord(value) && Object.keys(value).every((k) => isJsonValue(value[k], depth + 1));
}
