/** What the mapping tests share: a candidate's issues as lines, its item, a usage error's message. */
import { expect } from 'vitest';
import type { Candidate } from '../../src/core/candidate.js';
import { UsageError } from '../../src/errors.js';

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
