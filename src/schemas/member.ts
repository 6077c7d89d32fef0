/**
 * The member area's contracts, mirrored exactly from the API description (seed 000).
 * One source of truth: the client validates with these before sending, the sandbox validates with them on receipt.
 * The item's schemas are built in member-item-schema.ts (at their first use: loading this module uses them), the
 * answers' in import-result.ts, what needs no zod in member-fields.ts.
 */
import { z } from 'zod';
import { itemSchemas } from './member-item-schema.js';

export { ADDRESS_FIELDS, isJsonValue, isPlainRecord, MEMBER_FIELDS, NULLABLE_FIELDS } from './member-fields.js';
export { dataRecord } from './member-item-schema.js';
export * from './import-result.js';

export const { addressSchema, jsonValueSchema, memberUpsertItemSchema } = itemSchemas();

export const importRequestSchema = z.array(memberUpsertItemSchema).min(1);

export type Address = z.infer<typeof addressSchema>;
export type MemberUpsertItem = z.infer<typeof memberUpsertItemSchema>;
export type ImportRequest = z.infer<typeof importRequestSchema>;
