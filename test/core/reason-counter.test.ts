import { describe, expect, it } from 'vitest';
import { OTHER_REASONS, ReasonCounter } from '../../src/core/reason-counter.js';

describe('ReasonCounter (validate and every import stage)', () => {
  it('counts reasons, most frequent first, ties by name', () => {
    const counter = new ReasonCounter();
    for (const reason of ['b', 'a', 'c', 'c']) counter.add(reason);
    expect(counter.top(5)).toEqual([
      { reason: 'c', count: 2 },
      { reason: 'a', count: 1 },
      { reason: 'b', count: 1 },
    ]);
  });

  it('past 1000 distinct reasons, new ones count together under one key; known ones keep counting', () => {
    const counter = new ReasonCounter();
    for (let i = 0; i < 1000; i++) counter.add(`reason ${i}`);
    counter.add('reason 0');
    counter.add('new one');
    counter.addIssues([{ path: 'email', message: 'too long', rule: 'too long' }]);
    expect(counter.top(2)).toEqual([
      { reason: OTHER_REASONS, count: 2 },
      { reason: 'reason 0', count: 2 },
    ]);
    expect(OTHER_REASONS).toBe('(other reasons)');
  });

  it('an invalid record counts once per issue, metadata keys grouped', () => {
    const counter = new ReasonCounter();
    counter.addIssues([
      { path: 'email', message: 'must be at most 256 characters', rule: 'longer than 256 characters' },
      { path: 'metadata.tier', message: 'expected string', rule: 'expected string' },
    ]);
    expect(counter.top(5).map((r) => r.reason)).toEqual([
      'email: longer than 256 characters',
      'metadata.<key>: expected string',
    ]);
  });
});
