/**
 * Validates an import body with the shared schemas and turns zod issues into the error object's details:
 * one entry per problem, naming the item's index (from 0, its position in the request array), its memberId
 * (when it has a string one) and the field path ("address.zipCode").
 */
import { memberUpsertItemSchema, type MemberUpsertItem } from '../schemas/index.js';

export interface ItemProblem {
  index: number | null;
  memberId: string | null;
  field: string;
  message: string;
}

/** Details stay readable and bounded even for a thousand bad items. */
export const MAX_PROBLEMS = 1000;

export type ValidationResult =
  | { ok: true; items: MemberUpsertItem[] }
  | { ok: false; message: string; problems: ItemProblem[] };

const memberIdOf = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { memberId?: unknown }).memberId;
  return typeof id === 'string' ? id : null;
};

/** zod says "expected string, received undefined" for a missing field; say "required" as an API would. */
const humanMessage = (message: string) =>
  message.endsWith('received undefined') ? 'required field is missing' : message;

export function validateImportBody(body: unknown): ValidationResult {
  if (!Array.isArray(body)) {
    return {
      ok: false,
      message: 'The request body must be a JSON array of member items.',
      problems: [{ index: null, memberId: null, field: '', message: 'expected an array' }],
    };
  }
  if (body.length === 0) {
    return {
      ok: false,
      message: 'The request body must hold at least 1 member item.',
      problems: [{ index: null, memberId: null, field: '', message: 'array is empty' }],
    };
  }
  const items: MemberUpsertItem[] = new Array(body.length);
  const problems: ItemProblem[] = [];
  let badItems = 0;
  for (let index = 0; index < body.length; index++) {
    const result = memberUpsertItemSchema.safeParse(body[index]);
    if (result.success) {
      items[index] = result.data;
      continue;
    }
    badItems++;
    for (const issue of result.error.issues) {
      if (problems.length >= MAX_PROBLEMS) break;
      const path = issue.path.map(String);
      // zod reports unknown keys on the object itself; name the key so the field path says which one.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      for (const key of keys) {
        problems.push({
          index,
          memberId: memberIdOf(body[index]),
          field: [...path, ...(key ? [key] : [])].join('.'),
          message: humanMessage(issue.message),
        });
      }
    }
  }
  if (badItems > 0) {
    const noun = badItems === 1 ? 'item is' : 'items are';
    return { ok: false, message: `${badItems} of ${body.length} ${noun} invalid.`, problems };
  }
  return { ok: true, items };
}
