import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADDRESS_FIELDS, MEMBER_FIELDS, memberUpsertItemSchema } from '../../src/schemas/index.js';
import { isMemberItem } from '../../src/schemas/member-check.js';

// isMemberItem stands for zod's parse of a CSV row's item (csv-mapper.ts): it must never pass an item zod refuses
// (zod then says why), and an item it passes must be what zod gives back, key for key and value for value.
const MAX: Record<string, number> = {
  memberId: 36,
  email: 256,
  firstName: 64,
  lastName: 64,
  phone: 32,
  selectedStoreId: 64,
  loyaltyProgram: 64,
  nationality: 64,
  homeTelephone: 32,
  genderId: 300,
  zipCode: 8,
  city: 32,
  addressLine1: 128,
  addressLine2: 64,
  region: 32,
  countryCode: 2,
};
const BOOLEANS = ['isActive', 'isEmployee', 'deceased', 'isMembershipFeePaid'];
const DATES = ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123+02:00', '1999-12-31T23:59:59.999Z'];

/** Text JSON must escape, or writes as it is although a naive check might not: quotes, controls, lone surrogates. */
const tricky = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '\ud83d\ude00'),
      fc.constantFrom('é', 'ß', '€', 'a', ' '),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));
const anyText = (max: number) =>
  fc.oneof(
    { arbitrary: fc.string({ maxLength: max + 1 }), weight: 6 },
    { arbitrary: tricky.filter((text) => text.length <= max + 1), weight: 3 },
    { arbitrary: fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), `${'x'.repeat(max - 1)}\ud800`), weight: 1 },
  );
const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  tricky,
  fc.constantFrom('__proto__', 'constructor', 'toString', '0', '12', 'toJSON'),
);
/** A map as a mapper makes one (no prototype) or as JSON.parse does. */
const map = <T>(value: fc.Arbitrary<T>) =>
  fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 4 }), fc.boolean()).map(([entries, bare]) => {
    const out: Record<string, T> = bare ? Object.create(null) : {};
    for (const [k, v] of entries)
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
const wild = fc.oneof(
  fc.constantFrom('', '2024-05-01', '2024-02-30T00:00:00Z', '2024-05-01T12:00:00', new Date(0), [1], -0, Number.NaN),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  tricky,
  fc.jsonValue({ maxDepth: 2 }),
  map(fc.jsonValue({ maxDepth: 1 })),
);
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: wild, weight: 1 });
const bounded = (field: string) =>
  fc.oneof({ arbitrary: anyText(MAX[field]!), weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
const flatJson = fc.oneof(tricky, fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant(-0));

function validValue(field: string): fc.Arbitrary<unknown> {
  if (field === 'memberId') return fc.oneof(fc.string({ minLength: 1, maxLength: 36 }), tricky, anyText(36));
  if (BOOLEANS.includes(field))
    return field === 'isActive' || field === 'isEmployee' ? fc.boolean() : fc.oneof(fc.boolean(), fc.constant(null));
  if (field === 'createdAt') return fc.constantFrom(...DATES);
  if (field === 'birthdate') return fc.constantFrom(...DATES, null);
  if (field === 'address')
    return fc
      .tuple(
        fc.record(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, mostly(bounded(f))])), { requiredKeys: [] }),
        fc.boolean(),
      )
      .map(([address, extra]) => (extra ? { ...address, street: 'x' } : address));
  if (field === 'metadata') return fc.oneof(map(mostly(fc.oneof(tricky, fc.constant(null)))), fc.constant(null));
  if (field === 'customProperties')
    return fc.oneof(map(mostly(flatJson)), map(fc.jsonValue({ maxDepth: 2 })), fc.constant(null));
  return bounded(field);
}

const item = fc
  .tuple(
    fc.record(
      { ...Object.fromEntries(MEMBER_FIELDS.map((field) => [field, mostly(validValue(field))])), unknownField: wild },
      { requiredKeys: [] },
    ),
    fc.shuffledSubarray([...MEMBER_FIELDS, 'unknownField']),
  )
  .map(([record, order]) => {
    // the keys in any order: a CSV file's columns, a JSON export's keys
    const base: Record<string, unknown> = { memberId: 'm-1', isActive: true, createdAt: DATES[0], ...record };
    const out: Record<string, unknown> = {};
    for (const name of order)
      if (name in base && (name !== 'unknownField' || base[name] === true)) out[name] = base[name];
    for (const name of Object.keys(base)) if (!(name in out) && name !== 'unknownField') out[name] = base[name];
    return out;
  });

describe('isMemberItem', () => {
  it('passes only what zod accepts, and zod gives back the same keys and values', () => {
    let passed = 0;
    let refused = 0;
    fc.assert(
      fc.property(item, (input) => {
        const parsed = memberUpsertItemSchema.safeParse(input);
        if (!parsed.success) refused++;
        if (!isMemberItem(input)) return;
        passed++;
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(input);
      }),
      { numRuns: 5000 },
    );
    // both sides well exercised
    expect(passed).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('passes every valid item of plain values (the quick path is the common one)', () => {
    const plain = item.filter((input) => {
      const address = (input as { address?: object }).address;
      const values = [...Object.values(input), ...Object.values(address ?? {})];
      // left to zod by design: a key present as undefined, an item or address not made as `{}` (a Date, no prototype)
      const plainValues = values.every((v) => v !== undefined && !(v instanceof Date));
      const literal = [input, address ?? {}].every((o) => Object.getPrototypeOf(o) === Object.prototype);
      return plainValues && literal && memberUpsertItemSchema.safeParse(input).success;
    });
    fc.assert(
      fc.property(plain, (input) => {
        expect(isMemberItem(input)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('takes escapes, lone surrogates and nested customProperties as zod does', () => {
    const input = {
      memberId: 'a"b\\c',
      isActive: true,
      createdAt: DATES[0],
      firstName: 'x\u0000\n\u001f',
      lastName: '\ud800 alone',
      countryCode: undefined,
      metadata: { 'k"\ud800': 'v\u2028' },
      customProperties: { n: -0, deep: { a: [1, { b: null }] } },
    };
    const { countryCode: _, ...item } = input;
    expect(isMemberItem(item)).toBe(true);
    expect(memberUpsertItemSchema.parse(item)).toStrictEqual(item);
    expect(isMemberItem(input)).toBe(false); // a key present as undefined: zod's to judge
    expect(isMemberItem({ ...item, address: { city: 'Oslo', street: 'x' } })).toBe(false);
    expect(isMemberItem({ ...item, countryCode: 'SE' })).toBe(false);
    expect(isMemberItem({ ...item, email: 'x'.repeat(257) })).toBe(false);
    expect(isMemberItem({ ...item, email: '\ud83d\ude00'.repeat(256) })).toBe(true); // 256 code points, as zod counts
  });
});
