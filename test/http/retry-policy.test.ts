import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  backoffDelay,
  memberRetryPolicy,
  parseRetryAfter,
  pushRetryPolicy,
  type RetryPolicy,
} from '../../src/http/retry-policy.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
  });

  it('reads an HTTP date relative to now; a past date means now', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:59:00 GMT', NOW)).toBe(0);
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2000);
  });

  it('gives undefined for missing or garbage values, so backoff applies', () => {
    for (const bad of [undefined, '', '  ', '-5', 'soon', '1e3', '0x10', '12abc']) {
      expect(parseRetryAfter(bad, NOW), String(bad)).toBeUndefined();
    }
  });
});

describe('parseRetryAfter: absurd values', () => {
  it('a huge delta is kept as the long wait it asks for, never Infinity; a far date too', () => {
    expect(parseRetryAfter('99999', NOW)).toBe(99_999_000);
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBeGreaterThan(2e14);
  });
});

describe('backoffDelay', () => {
  const policy: RetryPolicy = { ...memberRetryPolicy(), minDelayMs: 100, maxDelayMs: 1000 };

  it('doubles per retry with equal jitter: between half the step and the step', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(2, policy, () => 0)).toBe(100);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
  });

  it('is capped at maxDelayMs however many retries', () => {
    expect(backoffDelay(5, policy, () => 1)).toBe(1000);
    expect(backoffDelay(10_000, policy, () => 1)).toBe(1000);
    expect(backoffDelay(10_000, policy, () => 0)).toBe(500);
  });

  it('stays within [step/2, step] for any attempt and random value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const step = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** (attempt - 1));
        const delay = backoffDelay(attempt, policy, () => r);
        return Number.isFinite(delay) && delay >= Math.floor(step / 2) && delay <= step;
      }),
    );
  });

  it('a misbehaving random source cannot push the delay out of bounds', () => {
    expect(backoffDelay(1, policy, () => 7)).toBe(100);
    expect(backoffDelay(1, policy, () => -3)).toBe(50);
  });
});

describe('policies', () => {
  it('member import retries 500 (documented error) but push does not', () => {
    expect(memberRetryPolicy().statuses).toEqual([429, 500, 502, 503, 504]);
    expect(pushRetryPolicy().statuses).toEqual([429, 502, 503, 504]);
    expect(memberRetryPolicy(7).retries).toBe(7);
  });
});
