/**
 * member-fields.ts says without zod what the schemas (member.ts) say: the CSV worker maps and checks rows with it
 * alone. Each list and the date-time pattern must stay what zod's schemas give.
 */
import { describe, expect, it } from 'vitest';
import { addressSchema, memberUpsertItemSchema } from '../../src/schemas/member.js';
import { ADDRESS_FIELDS, DATE_TIME, MEMBER_FIELDS, NULLABLE_FIELDS } from '../../src/schemas/member-fields.js';

type Shape = Record<string, { safeParse(value: unknown): { success: boolean } }>;

describe('member-fields', () => {
  it("lists the item's and the address's fields in the schemas' order", () => {
    expect(MEMBER_FIELDS).toEqual(Object.keys(memberUpsertItemSchema.shape));
    expect(ADDRESS_FIELDS).toEqual(Object.keys(addressSchema.shape));
  });

  it('names exactly the fields whose schema takes null', () => {
    const shape = memberUpsertItemSchema.shape as unknown as Shape;
    const nullable = Object.keys(shape).filter((field) => shape[field]!.safeParse(null).success);
    expect([...NULLABLE_FIELDS]).toEqual(nullable);
  });

  it("is zod's own date-time pattern for createdAt and birthdate", () => {
    for (const field of ['createdAt', 'birthdate'] as const) {
      let schema = memberUpsertItemSchema.shape[field] as unknown as {
        _zod: { def: { pattern?: RegExp; innerType?: unknown } };
      };
      // birthdate: nullable(optional(datetime))
      while (!schema._zod.def.pattern) schema = schema._zod.def.innerType as typeof schema;
      expect(DATE_TIME.source).toBe(schema._zod.def.pattern.source);
      expect(DATE_TIME.flags).toBe(schema._zod.def.pattern.flags);
    }
  });
});
