import { describe, expect, it } from 'vitest';
import { addressSchema, memberUpsertItemSchema, MEMBER_FIELDS, ADDRESS_FIELDS } from '../../src/schemas/index.js';

const base = { memberId: 'm-1', isActive: true, createdAt: '2024-05-01T12:00:00Z' };
const ok = (extra: Record<string, unknown>) => memberUpsertItemSchema.safeParse({ ...base, ...extra }).success;
const issuesOf = (value: unknown) => {
  const r = memberUpsertItemSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ code: i.code, path: i.path.join('.') }));
};

describe('member upsert item', () => {
  it('accepts the minimal item and lists the API fields in order', () => {
    expect(memberUpsertItemSchema.safeParse(base).success).toBe(true);
    expect(MEMBER_FIELDS[0]).toBe('memberId');
    expect(MEMBER_FIELDS).toHaveLength(19);
    expect(ADDRESS_FIELDS).toEqual(['zipCode', 'city', 'addressLine1', 'addressLine2', 'region', 'countryCode']);
  });

  it('bounds memberId at 1..36 and requires it', () => {
    expect(ok({ memberId: 'x'.repeat(36) })).toBe(true);
    expect(ok({ memberId: 'x'.repeat(37) })).toBe(false);
    expect(ok({ memberId: '' })).toBe(false);
    expect(ok({ memberId: null })).toBe(false);
    const { memberId: _, ...withoutId } = base;
    expect(issuesOf(withoutId)).toEqual([{ code: 'invalid_type', path: 'memberId' }]);
  });

  it('requires isActive (boolean) and createdAt (date-time, not null)', () => {
    expect(
      issuesOf({ memberId: 'a' })
        .map((i) => i.path)
        .sort(),
    ).toEqual(['createdAt', 'isActive']);
    expect(ok({ isActive: 'true' })).toBe(false);
    expect(ok({ isActive: null })).toBe(false);
    expect(ok({ createdAt: null })).toBe(false);
  });

  const maxLengths: [string, number][] = [
    ['email', 256],
    ['firstName', 64],
    ['lastName', 64],
    ['phone', 32],
    ['selectedStoreId', 64],
    ['loyaltyProgram', 64],
    ['nationality', 64],
    ['homeTelephone', 32],
  ];
  it.each(maxLengths)('%s: max %i characters, nullable, optional', (field, max) => {
    expect(ok({ [field]: 'a'.repeat(max) })).toBe(true);
    expect(ok({ [field]: 'a'.repeat(max + 1) })).toBe(false);
    expect(ok({ [field]: null })).toBe(true);
    expect(ok({ [field]: 5 })).toBe(false);
    expect(ok({})).toBe(true);
  });

  it('genderId has no length bound', () => {
    expect(ok({ genderId: 'g'.repeat(10_000) })).toBe(true);
    expect(ok({ genderId: null })).toBe(true);
  });

  it('null vs absent: nullable fields take null, non-nullable ones do not', () => {
    for (const field of ['birthdate', 'deceased', 'isMembershipFeePaid', 'metadata', 'customProperties']) {
      expect(ok({ [field]: null }), field).toBe(true);
    }
    for (const field of ['isEmployee', 'address']) expect(ok({ [field]: null }), field).toBe(false);
    expect(ok({ isEmployee: undefined })).toBe(true);
  });

  it('date-times: Z and offsets pass; no zone, plain dates and impossible dates fail', () => {
    for (const v of [
      '2024-05-01T12:00:00Z',
      '2024-05-01T12:00:00.123Z',
      '2024-05-01T12:00:00+02:00',
      '2024-02-29T00:00:00Z',
    ]) {
      expect(ok({ createdAt: v, birthdate: v }), v).toBe(true);
    }
    for (const v of ['2024-05-01', '2024-05-01T12:00:00', '2023-02-29T00:00:00Z', '01/05/2024', 'yesterday', '']) {
      expect(ok({ createdAt: v }), v).toBe(false);
      expect(ok({ birthdate: v }), v).toBe(false);
    }
  });

  it('refuses unknown properties at the top level and inside address', () => {
    expect(issuesOf({ ...base, emial: 'a@b.c' })).toEqual([{ code: 'unrecognized_keys', path: '' }]);
    expect(issuesOf({ ...base, address: { city: 'Oslo', street: 'x' } })).toEqual([
      { code: 'unrecognized_keys', path: 'address' },
    ]);
    expect(
      issuesOf(JSON.parse('{"memberId":"a","isActive":true,"createdAt":"2024-05-01T12:00:00Z","__proto__":{"x":1}}')),
    ).toEqual([{ code: 'unrecognized_keys', path: '' }]);
  });

  it('address: six nullable strings with their max lengths', () => {
    const limits = { zipCode: 8, city: 32, addressLine1: 128, addressLine2: 64, region: 32, countryCode: 2 };
    for (const [field, max] of Object.entries(limits)) {
      expect(addressSchema.safeParse({ [field]: 'a'.repeat(max) }).success, field).toBe(true);
      expect(addressSchema.safeParse({ [field]: 'a'.repeat(max + 1) }).success, field).toBe(false);
      expect(addressSchema.safeParse({ [field]: null }).success, field).toBe(true);
    }
    expect(addressSchema.safeParse({}).success).toBe(true);
  });

  it('metadata: string or null values only', () => {
    expect(ok({ metadata: { tier: 'gold', note: null } })).toBe(true);
    expect(ok({ metadata: {} })).toBe(true);
    expect(issuesOf({ ...base, metadata: { n: 1 } })).toEqual([{ code: 'invalid_type', path: 'metadata.n' }]);
    expect(ok({ metadata: { nested: { a: 'b' } } })).toBe(false);
    expect(ok({ metadata: ['a'] })).toBe(false);
    expect(ok({ metadata: 'tier=gold' })).toBe(false);
  });

  it('customProperties: any JSON value, but not non-JSON values', () => {
    expect(
      ok({
        customProperties: { s: 'x', n: 1.5, b: false, z: null, a: [1, 'two', { three: 3 }], o: { deep: { er: [] } } },
      }),
    ).toBe(true);
    expect(ok({ customProperties: { n: Number.NaN } })).toBe(false);
    expect(ok({ customProperties: { u: undefined } })).toBe(false);
    expect(ok({ customProperties: { d: new Date() } })).toBe(false);
    expect(ok({ customProperties: 42 })).toBe(false);
  });

  it('__proto__, constructor and prototype keys are data: validated, kept, and pollute nothing', () => {
    const json =
      '{"memberId":"a","isActive":true,"createdAt":"2024-05-01T12:00:00Z",' +
      '"metadata":{"__proto__":"p","constructor":"c","prototype":null},' +
      '"customProperties":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"nested":{"__proto__":[1]}}}';
    const parsed = memberUpsertItemSchema.parse(JSON.parse(json));
    expect(JSON.stringify(parsed)).toBe(json);
    expect(Object.keys(parsed.metadata!)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed.metadata)).toBe(Object.prototype);
    // an own __proto__ key is validated like any other (zod's z.record would skip it)
    const bad = JSON.parse(
      '{"memberId":"a","isActive":true,"createdAt":"2024-05-01T12:00:00Z","metadata":{"__proto__":5}}',
    );
    expect(issuesOf(bad)).toEqual([{ code: 'invalid_type', path: 'metadata.__proto__' }]);
    // maps built without a prototype are accepted too
    const bare = Object.create(null) as Record<string, string>;
    bare.__proto__ = 'x';
    expect(ok({ metadata: bare })).toBe(true);
  });
});
