import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memberUpsertItemSchema, MEMBER_FIELDS, ADDRESS_FIELDS } from '../../src/schemas/index.js';

// memberUpsertItemSchema goes through z.compile. safeParseAsync always takes zod's runtime parser, so the two
// must agree on every input: same verdict, same output (a wrong "valid" from the fast path would never be caught).
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
  genderId: 100,
  zipCode: 8,
  city: 32,
  addressLine1: 128,
  addressLine2: 64,
  region: 32,
  countryCode: 2,
};
const BOOLEANS = ['isActive', 'isEmployee', 'deceased', 'isMembershipFeePaid'];
const DATES = ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123+02:00', '1999-12-31T23:59:59.999Z'];
const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'toString'));
const wild = fc.oneof(
  fc.constantFrom(
    '',
    'x'.repeat(9),
    'x'.repeat(33),
    'x'.repeat(37),
    'x'.repeat(65),
    'x'.repeat(257),
    '2024-05-01',
    '2024-02-30T00:00:00Z',
    '2024-05-01T12:00:00',
  ),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(key, fc.jsonValue({ maxDepth: 1 })),
);
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 30 }, { arbitrary: wild, weight: 1 });
const bounded = (field: string) => fc.oneof(fc.string({ maxLength: MAX[field] }), fc.constant(null));

function validValue(field: string): fc.Arbitrary<unknown> {
  if (field === 'memberId') return fc.string({ minLength: 1, maxLength: 36 });
  if (BOOLEANS.includes(field))
    return field === 'isActive' || field === 'isEmployee' ? fc.boolean() : fc.oneof(fc.boolean(), fc.constant(null));
  if (field === 'createdAt') return fc.constantFrom(...DATES);
  if (field === 'birthdate') return fc.constantFrom(...DATES, null);
  if (field === 'address')
    return fc.record(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, mostly(bounded(f))])), { requiredKeys: [] });
  if (field === 'metadata')
    return fc.oneof(
      fc.dictionary(key, mostly(fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)))),
      fc.constant(null),
    );
  if (field === 'customProperties')
    return fc.oneof(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 })), fc.constant(null));
  return bounded(field);
}

const item = fc
  .record(
    { ...Object.fromEntries(MEMBER_FIELDS.map((field) => [field, mostly(validValue(field))])), unknownField: wild },
    { requiredKeys: [] },
  )
  .map(({ unknownField, ...record }) => ({
    memberId: 'm-1',
    isActive: true,
    createdAt: DATES[0],
    ...record,
    ...(unknownField === true ? { unknownField } : {}),
  }));

describe('the compiled member schema', () => {
  it("agrees with zod's runtime parser on any input, valid or not", async () => {
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(item, async (input) => {
        const fast = memberUpsertItemSchema.safeParse(input);
        const runtime = await memberUpsertItemSchema.safeParseAsync(input);
        expect(fast.success).toBe(runtime.success);
        if (fast.success && runtime.success) {
          valid++;
          expect(fast.data).toStrictEqual(runtime.data);
        } else expect(fast.error!.issues).toEqual(runtime.error!.issues);
      }),
      { numRuns: 3000 },
    );
    expect(valid).toBeGreaterThan(300); // both verdicts are well exercised
  });

  it('is compiled (the fast path is what validate and import rely on for speed)', () => {
    expect((memberUpsertItemSchema._zod.run as { __originalRun?: unknown }).__originalRun).toBeTypeOf('function');
  });
});
