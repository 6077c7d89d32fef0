/**
 * The member area's contracts, mirrored exactly from the API description (seed 000).
 * One source of truth: the client validates with these before sending, the sandbox validates with them on receipt.
 */
import { z } from 'zod';
import { CUSTOM_VALUE_LEVELS, nestedDeeperThan, TOO_DEEP_MESSAGE } from './json-depth.js';
import { isJsonValue, isPlainRecord } from './member-fields.js';

export { ADDRESS_FIELDS, isJsonValue, isPlainRecord, MEMBER_FIELDS, NULLABLE_FIELDS } from './member-fields.js';

/** ISO 8601 date-time; an offset (+02:00) is as valid as Z. */
const isoDateTime = () => z.iso.datetime({ offset: true });
const nullableMax = (max: number) => z.string().max(max).nullable();

export const addressSchema = z.strictObject({
  zipCode: nullableMax(8).optional(),
  city: nullableMax(32).optional(),
  addressLine1: nullableMax(128).optional(),
  addressLine2: nullableMax(64).optional(),
  region: nullableMax(32).optional(),
  countryCode: nullableMax(2).optional(),
});

/**
 * A map of string keys to values, treated as plain data. zod's z.record leaves an own "__proto__" key out of its
 * output (and never validates it), so a member whose metadata has such a key would silently lose it. Here every own
 * key is validated, and the parsed value is the input object itself, own "__proto__" / "constructor" keys included.
 * `quickCheck` accepts the common case without a nested parse (this runs for every record of a large import).
 */
export function dataRecord<T>(valueSchema: z.ZodType<T>, quickCheck: (value: unknown) => boolean, maxLevels?: number) {
  return z
    .custom<Record<string, T>>(isPlainRecord, { error: 'expected an object (a map of string keys)' })
    .superRefine((input, ctx) => {
      for (const key of Object.keys(input)) {
        const value = input[key];
        if (quickCheck(value)) continue;
        // Checked before the nested parse: zod's recursion over a value 2,000 levels deep would exhaust the stack.
        if (maxLevels !== undefined && nestedDeeperThan(value, maxLevels)) {
          ctx.addIssue({ code: 'custom', path: [key], message: TOO_DEEP_MESSAGE, input: value });
          continue;
        }
        const result = valueSchema.safeParse(value, { reportInput: true });
        if (result.success) continue;
        for (const issue of result.error.issues) {
          ctx.addIssue({ ...issue, path: [key, ...issue.path] } as Parameters<typeof ctx.addIssue>[0]);
        }
      }
    });
}

const isStringOrNull = (value: unknown) => typeof value === 'string' || value === null;

/** Any JSON value (customProperties values). */
export const jsonValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    dataRecord(jsonValueSchema, isJsonValue),
  ]),
);

/**
 * The upsert item, through z.compile: zod's own code generated from this very schema, ~6× faster on a valid item
 * (the common case: validate and import check every record). An item it rejects is parsed again by the runtime
 * parser, so the issues, and any parse options such as reportInput, are exactly the runtime's.
 */
export const memberUpsertItemSchema = z.compile(
  z.strictObject({
    memberId: z.string().min(1).max(36),
    email: nullableMax(256).optional(),
    firstName: nullableMax(64).optional(),
    lastName: nullableMax(64).optional(),
    phone: nullableMax(32).optional(),
    birthdate: isoDateTime().nullable().optional(),
    address: addressSchema.optional(),
    isActive: z.boolean(),
    createdAt: isoDateTime(),
    genderId: z.string().nullable().optional(),
    selectedStoreId: nullableMax(64).optional(),
    loyaltyProgram: nullableMax(64).optional(),
    isEmployee: z.boolean().optional(),
    nationality: nullableMax(64).optional(),
    metadata: dataRecord(z.string().nullable(), isStringOrNull).nullable().optional(),
    deceased: z.boolean().nullable().optional(),
    homeTelephone: nullableMax(32).optional(),
    isMembershipFeePaid: z.boolean().nullable().optional(),
    customProperties: dataRecord(jsonValueSchema, isJsonValue, CUSTOM_VALUE_LEVELS).nullable().optional(),
  }),
);

export const importRequestSchema = z.array(memberUpsertItemSchema).min(1);

export const skippedEntrySchema = z.strictObject({
  memberId: z.string().nullable(),
  reason: z.string().nullable(),
});

export const importResultSchema = z.strictObject({
  importedCount: z.number().int().min(-2147483648).max(2147483647),
  updatedCount: z.number().int().min(-2147483648).max(2147483647),
  skipped: z.array(skippedEntrySchema).nullable(),
});

export const memberErrorSchema = z.object({
  name: z.string().min(1),
  message: z.string().min(1),
  details: z.unknown().nullable().optional(),
});

export type Address = z.infer<typeof addressSchema>;
export type MemberUpsertItem = z.infer<typeof memberUpsertItemSchema>;
export type ImportRequest = z.infer<typeof importRequestSchema>;
export type SkippedEntry = z.infer<typeof skippedEntrySchema>;
export type ImportResult = z.infer<typeof importResultSchema>;
export type MemberError = z.infer<typeof memberErrorSchema>;
