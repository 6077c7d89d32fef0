/**
 * The upsert item's schemas (member.ts exports them), built at their first use (`itemSchemas`): a CSV import whose
 * rows the compiled check (member-check.ts) all takes never needs them. The main thread of such an import builds
 * them at the first row that check does not take (validate-item.ts), the CSV worker never (issue 28).
 */
import { z } from 'zod';
import { CUSTOM_VALUE_LEVELS, nestedDeeperThan, TOO_DEEP_MESSAGE } from './json-depth.js';
import { isJsonValue, isPlainRecord } from './member-fields.js';

/** ISO 8601 date-time; an offset (+02:00) is as valid as Z. */
const isoDateTime = () => z.iso.datetime({ offset: true });
const nullableMax = (max: number) => z.string().max(max).nullable();

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

function buildItemSchemas() {
  const addressSchema = z.strictObject({
    zipCode: nullableMax(8).optional(),
    city: nullableMax(32).optional(),
    addressLine1: nullableMax(128).optional(),
    addressLine2: nullableMax(64).optional(),
    region: nullableMax(32).optional(),
    countryCode: nullableMax(2).optional(),
  });

  /** Any JSON value (customProperties values). */
  const jsonValueSchema: z.ZodType<unknown> = z.lazy(() =>
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
  const memberUpsertItemSchema = z.compile(
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
  return { addressSchema, jsonValueSchema, memberUpsertItemSchema };
}

export type ItemSchemas = ReturnType<typeof buildItemSchemas>;
let built: ItemSchemas | undefined;

/** The item's schemas, built once, at the first call. */
export function itemSchemas(): ItemSchemas {
  return (built ??= buildItemSchemas());
}
