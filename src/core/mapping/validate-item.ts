/**
 * The one place a built item meets the schema: valid item, or every issue in human terms. The schema is built at
 * the first item that comes here (member-item-schema.ts): a CSV import's plainly valid rows never do (csv-mapper.ts).
 */
import type { MemberUpsertItem } from '../../schemas/member.js';
import { itemSchemas } from '../../schemas/member-item-schema.js';
import type { RecordIssue } from '../candidate.js';
import { toRecordIssues, type InputKind } from './issues.js';

// Costs nothing on a valid item: the compiled schema ignores options on its fast path (member.ts); only an
// invalid item is parsed by the runtime, which then keeps each issue's input for the messages.
const PARSE_OPTIONS = { reportInput: true } as const;

export type ItemCheck = { ok: true; item: MemberUpsertItem } | { ok: false; issues: RecordIssue[] };

export function checkItem(value: unknown, kind: InputKind): ItemCheck {
  const result = itemSchemas().memberUpsertItemSchema.safeParse(value, PARSE_OPTIONS);
  return result.success
    ? { ok: true, item: result.data }
    : { ok: false, issues: toRecordIssues(result.error.issues, kind) };
}
