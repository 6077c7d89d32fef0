/**
 * The import endpoint's answers (seed 000): what the HTTP client checks every response against, apart from the
 * item's schemas (member-item-schema.ts), which an import may never need.
 */
import { z } from 'zod';

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

export type SkippedEntry = z.infer<typeof skippedEntrySchema>;
export type ImportResult = z.infer<typeof importResultSchema>;
export type MemberError = z.infer<typeof memberErrorSchema>;
