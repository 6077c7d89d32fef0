/**
 * The adaptive concurrency limit, fed samples by hand (no clock, no server): it grows while latency stays near its
 * floor and the requests fill it, shrinks on overload answers and on latency that rises, and stays within its bounds.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, createLimit, fixedLimit, type AttemptSample } from '../../src/core/import/concurrency-limit.js';

/** One round trip: as many requests as the limit allows leave (filling it), then each is answered with `sample`. */
function roundTrip(limit: AdaptiveLimit, sample: AttemptSample | ((i: number) => AttemptSample)): void {
  const attempts = Array.from({ length: limit.current }, () => limit.attempt());
  attempts.forEach((ended, i) => ended(typeof sample === 'function' ? sample(i) : sample));
}

const ok = (ms: number): AttemptSample => ({ ms, status: 200 });

describe('adaptive concurrency limit', () => {
  it('starts small and doubles per round trip against a fast server, up to its cap and never past it', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 32 });
    expect(limit.current).toBe(4);
    expect(limit.phase).toBe('slow-start');
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      roundTrip(limit, ok(20));
      seen.push(limit.current);
    }
    expect(seen).toEqual([8, 16, 32, 32, 32, 32, 32, 32, 32, 32]);
    expect(limit.peak).toBe(32);
  });

  it('in slow start, doubles once per round trip of a steady stream, counting answers to requests sent before it grew', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 64 });
    const first = Array.from({ length: 4 }, () => limit.attempt());
    first.slice(0, 2).forEach((ended) => ended(ok(100)));
    const sentBefore = Array.from({ length: 2 }, () => limit.attempt()); // left as the first answers freed slots
    first.slice(2).forEach((ended) => ended(ok(100)));
    expect(limit.current).toBe(8);
    const sentAfter = Array.from({ length: 6 }, () => limit.attempt()); // fill the new limit: 2 + 6 in flight
    [...sentBefore, ...sentAfter].forEach((ended) => ended(ok(100)));
    expect(limit.current).toBe(16);
  });

  it("in slow start, grows on the new limit's own answers: earlier ones, sent into a shorter queue, do not hide a queue", () => {
    const limit = new AdaptiveLimit({ initial: 16, max: 64 });
    const first = Array.from({ length: 16 }, () => limit.attempt());
    const second = Array.from({ length: 16 }, () => limit.attempt()); // left as the first were answered
    first.forEach((ended) => ended(ok(50)));
    expect(limit.current).toBe(32);
    const fresh = Array.from({ length: 16 }, () => limit.attempt());
    // the earlier requests come back fast; the new limit's own wait in the server's queue, twice the floor
    second.forEach((ended) => ended(ok(50)));
    fresh.forEach((ended) => ended(ok(100)));
    expect(limit.current).toBe(32); // held, not doubled to 64
  });

  it('keeps growing in steady state by about √limit per round trip while latency stays near its floor', () => {
    const limit = new AdaptiveLimit({ initial: 16, max: 64 });
    roundTrip(limit, { ms: 100, status: 503 }); // the first overload ends slow start: 16 × 0.7
    expect(limit.current).toBe(11);
    expect(limit.phase).toBe('steady');
    roundTrip(limit, ok(100));
    expect(limit.current).toBe(14); // 11.2 + √11.2
    roundTrip(limit, ok(100));
    expect(limit.current).toBe(18);
  });

  it('does not grow when the requests do not fill it (the run is held back by its own reading)', () => {
    const limit = new AdaptiveLimit({ initial: 8, max: 32 });
    for (let i = 0; i < 5; i++) {
      // 8 answers, but never more than 2 requests on the wire at once
      for (let j = 0; j < 4; j++) {
        const a = limit.attempt();
        const b = limit.attempt();
        a(ok(10));
        b(ok(10));
      }
    }
    expect(limit.current).toBe(8);
  });

  it('backs off by 30% on a 503, a 429, a 504 or a timeout, once per round trip however many arrive together', () => {
    for (const overload of [
      { ms: 5, status: 503 },
      { ms: 5, status: 429 },
      { ms: 5, status: 504 },
      { ms: 30_000, reason: 'timeout' },
    ]) {
      const limit = new AdaptiveLimit({ initial: 20, max: 32 });
      roundTrip(limit, overload); // 20 overloads from requests sent under the same limit: one cut
      expect(limit.current).toBe(14);
      roundTrip(limit, overload); // the next round trip, sent under the new limit: cut again
      expect(limit.current).toBe(9);
    }
  });

  it('shrinks on 503s down to its floor of 1, and grows again once they stop', () => {
    const limit = new AdaptiveLimit({ initial: 8, max: 32 });
    for (let i = 0; i < 20; i++) roundTrip(limit, { ms: 50, status: 503 });
    expect(limit.current).toBe(1);
    for (let i = 0; i < 10; i++) roundTrip(limit, ok(50));
    expect(limit.current).toBeGreaterThan(1);
  });

  it('shrinks when latency rises well above its floor for a whole round trip (requests queue at the server)', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 64 });
    roundTrip(limit, ok(50));
    roundTrip(limit, ok(50));
    expect(limit.current).toBe(16);
    roundTrip(limit, ok(100)); // twice the floor: the ceiling is 50 × 1.5 + 10 = 85 ms
    expect(limit.current).toBe(13); // 16 × 85/100
    expect(limit.phase).toBe('steady');
    roundTrip(limit, ok(400)); // eight times the floor: at most halved
    expect(limit.current).toBe(6);
    for (let i = 0; i < 5; i++) roundTrip(limit, ok(400));
    expect(limit.current).toBe(4); // latency alone never goes below 4...
    roundTrip(limit, { ms: 400, status: 503 });
    expect(limit.current).toBe(2); // ...a 503 does
    roundTrip(limit, ok(400));
    expect(limit.current).toBe(2); // and latency neither grows nor cuts it there
  });

  it('tolerates latency a little above its floor, and the jitter of a loopback server', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 32 });
    roundTrip(limit, ok(0.3));
    roundTrip(limit, (i) => ok(i % 2 ? 30 : 0.5)); // a busy client: some answers wait to be read, not all
    expect(limit.current).toBe(16);
    const far = new AdaptiveLimit({ initial: 4, max: 32 });
    roundTrip(far, ok(100));
    roundTrip(far, ok(155));
    expect(far.current).toBe(16);
  });

  it('holds, neither growing nor shrinking, while most answers queue but the fastest does not (a busy server)', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 64 });
    roundTrip(limit, ok(50));
    roundTrip(limit, ok(50));
    expect(limit.current).toBe(16);
    // the fastest answers are at the floor, the median twice it: the server queues most requests
    for (let i = 0; i < 5; i++) roundTrip(limit, (n) => ok(n < 5 ? 50 : 100));
    expect(limit.current).toBe(16);
    roundTrip(limit, ok(50)); // the queue drained: growth resumes
    expect(limit.current).toBe(32);
  });

  it('ignores answers to requests sent under an older limit, and failures that say nothing about capacity', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 32 });
    const early = Array.from({ length: 4 }, () => limit.attempt());
    roundTrip(limit, ok(10)); // a round trip completes first: 8
    expect(limit.current).toBe(8);
    for (const observe of early) observe({ ms: 10, status: 503 }); // sent under 4: no cut
    expect(limit.current).toBe(8);
    roundTrip(limit, { ms: 10, status: 500 });
    roundTrip(limit, { ms: 10, reason: 'ECONNRESET' });
    expect(limit.current).toBe(8);
  });

  it('counts a retry under the limit in force when the retry left, not when its request first did', () => {
    const limit = new AdaptiveLimit({ initial: 4, max: 32 });
    const first = Array.from({ length: 4 }, () => limit.attempt());
    first[0]!({ ms: 5, status: 503 });
    expect(limit.current).toBe(2); // 4 × 0.7
    for (const ended of first.slice(1)) ended(ok(5)); // answers to attempts sent under 4: they do not count
    expect(limit.current).toBe(2);
    const retry = limit.attempt(); // request 1 retried after its backoff, under the limit of 2
    retry({ ms: 5, status: 503 });
    expect(limit.current).toBe(1);
  });

  it('is fixed with --concurrency, and adaptive up to --max-concurrency without it', () => {
    const fixed = fixedLimit(6);
    fixed.attempt()({ ms: 5, status: 503 });
    expect([fixed.current, fixed.peak, fixed.phase]).toEqual([6, 6, 'fixed']);
    expect(createLimit({ concurrency: 3, maxConcurrency: 50 }).current).toBe(3);
    const capped = createLimit({ maxConcurrency: 2 });
    expect([capped.current, capped.phase]).toEqual([2, 'slow-start']);
    expect(() => new AdaptiveLimit({ min: 4, max: 2 })).toThrow(RangeError);
  });
});
