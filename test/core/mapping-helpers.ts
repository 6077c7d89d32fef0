/** What the mapping tests share: a candidate's issues as lines, its item, a usage error's message. */
import { expect } from 'vitest';
import type { Candidate } from '../../src/core/candidate.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { UsageError } from '../../src/errors.js';
import { memberUpsertItemSchema } from '../../src/schemas/index.js';

export const issuesOf = (c: Candidate) =>
  c.valid ? [] : c.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));

export const itemOf = (c: Candidate) => {
  if (!c.valid) throw new Error(`invalid: ${issuesOf(c).join('; ')}`);
  return c.item;
};

export const usageMessage = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

/** A CSV column `X` read through `rule` (memberId and the required fields given): the item, or the issues' lines. */
export function cellReader(rule: object) {
  const mapping = parseMapping(
    {
      columns: { Id: 'memberId', X: rule },
      fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
    },
    'm.json',
  );
  const mapper = createRecordMapper('csv', ['Id', 'X'], { file: 'x.csv', mapping });
  return (cell: string) => {
    const c = mapper.toCandidate({ record: 1, line: 2, raw: ['m', cell] });
    return c.valid ? c.item : issuesOf(c);
  };
}

/**
 * What a valid candidate sends is what zod's parse of the row's item gave before the mapper checked items in place
 * (schemas/member-check.ts): JSON.stringify of the item is that text, key for key, value for value.
 */
export function expectZodsText(candidate: Candidate, built: Record<string, unknown>): void {
  if (!candidate.valid || candidate.omitted) return;
  expect(JSON.stringify(candidate.item)).toBe(JSON.stringify(memberUpsertItemSchema.parse(built)));
}
