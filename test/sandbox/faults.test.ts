import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/sandbox/faults.js';
import { call, importBatch, member, sandboxFixture, subscribe } from './helpers.js';

const fx = sandboxFixture();
afterEach(() => fx.stop());

async function statuses(count: number): Promise<(number | 'dropped')[]> {
  const seen: (number | 'dropped')[] = [];
  for (let i = 0; i < count; i++) {
    try {
      seen.push((await importBatch(fx.sandbox, [member(`m${i}`)])).status);
    } catch {
      seen.push('dropped');
    }
  }
  return seen;
}

describe('--fail-rate', () => {
  it('503 + error object, batch not applied; the same seed gives the same sequence, drawn two per request', async () => {
    await fx.start({ seed: 42, faults: { failRate: 0.3 } });
    const first = await statuses(40);
    const random = mulberry32(42);
    const expected = first.map(() => {
      const fail = random() < 0.3;
      random();
      return fail ? 503 : 200;
    });
    expect(first).toEqual(expected);
    const failures = first.filter((s) => s === 503).length;
    expect(failures).toBeGreaterThan(3);
    expect(fx.sandbox.memberCount()).toBe(40 - failures);
    expect(fx.sandbox.stats().byEndpoint['POST /member/v1/members/import']).toEqual({
      200: 40 - failures,
      503: failures,
    });

    const reply = await call(fx.sandbox.url, '/_sandbox/reset', { method: 'POST' });
    expect(reply.status).toBe(204);
    expect(await statuses(40)).toEqual(first);
    await fx.stop();
    await fx.start({ seed: 43, faults: { failRate: 0.3 } });
    expect(await statuses(40)).not.toEqual(first);
  });
});

describe('--drop-rate', () => {
  it('applies the batch, then destroys the connection without an answer', async () => {
    await fx.start({ seed: 7, faults: { dropRate: 0.25 } });
    const seen = await statuses(40);
    const random = mulberry32(7);
    const expected = seen.map(() => {
      random();
      return random() < 0.25 ? 'dropped' : 200;
    });
    expect(seen).toEqual(expected);
    const dropped = seen.filter((s) => s === 'dropped').length;
    expect(dropped).toBeGreaterThan(3);
    expect(fx.sandbox.memberCount()).toBe(40);
    expect(fx.sandbox.stats()).toMatchObject({ droppedConnections: dropped, importedCount: 40 });
  });
});

describe('--rate-limit', () => {
  it('beyond N requests in a second: 429 with Retry-After in seconds, not applied', async () => {
    await fx.start({ faults: { rateLimit: 3 } });
    const replies = await Promise.all([0, 1, 2, 3, 4].map((i) => importBatch(fx.sandbox, [member(`r${i}`)])));
    const limited = replies.filter((r) => r.status === 429);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(limited).toHaveLength(2);
    for (const reply of limited) {
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.json.message).toMatch(/rate limit of 3/);
    }
    expect(fx.sandbox.memberCount()).toBe(3);
  });
});

describe('--latency', () => {
  it('holds every API answer at least that long', async () => {
    await fx.start({ faults: { latencyMs: 150 } });
    await importBatch(fx.sandbox, [member('a')]);
    await subscribe(fx.sandbox, 'c', { tokenHandle: 't', platform: 'Hms', installationId: 'i' });
    const log = fx.sandbox.requests();
    expect(log).toHaveLength(2);
    for (const entry of log) expect(entry.answeredAt - entry.receivedAt).toBeGreaterThanOrEqual(145);
  });
});

describe('scripted faults (failNext) and refused memberIds', () => {
  it('answers the scripted statuses in order, then recovers', async () => {
    await fx.start({
      faults: {
        failNext: [
          { status: 503 },
          { status: 429, retryAfter: 2 },
          { drop: 'before-apply' },
          { status: 401 },
          { drop: 'after-apply' },
          { status: 413 },
        ],
      },
    });
    const seen: (number | string)[] = [];
    const retryAfter: unknown[] = [];
    for (let i = 0; i < 7; i++) {
      try {
        const reply = await importBatch(fx.sandbox, [member(`s${i}`)]);
        seen.push(reply.status);
        retryAfter.push(reply.headers['retry-after']);
      } catch {
        seen.push('dropped');
        retryAfter.push(undefined);
      }
    }
    expect(seen).toEqual([503, 429, 'dropped', 401, 'dropped', 413, 200]);
    expect(retryAfter[1]).toBe('2');
    expect(
      fx.sandbox
        .members()
        .map((m) => m.memberId)
        .sort(),
    ).toEqual(['s4', 's6']);
    expect(fx.sandbox.faults().failNext).toEqual([]);
  });

  it('a scripted push fault leaves imports alone', async () => {
    await fx.start({ faults: { failNext: [{ endpoint: 'push', status: 503 }] } });
    expect((await importBatch(fx.sandbox, [member('a')])).status).toBe(200);
    const reply = await subscribe(fx.sandbox, 'c', { tokenHandle: 't', platform: 'Apns', installationId: 'i' });
    expect(reply.status).toBe(503);
    expect(reply.headers['content-type']).toMatch(/problem\+json/);
  });

  it('rejectMemberIds: 400 naming the refused item, so a client can bisect to it', async () => {
    await fx.start({ faults: { rejectMemberIds: ['bad-1'] } });
    const reply = await importBatch(fx.sandbox, [member('ok-1'), member('bad-1'), member('ok-2')]);
    expect(reply.status).toBe(400);
    expect(reply.json.details).toEqual([
      { index: 1, memberId: 'bad-1', field: '', message: expect.stringMatching(/refused/) },
    ]);
    expect(fx.sandbox.memberCount()).toBe(0);
    expect((await importBatch(fx.sandbox, [member('ok-1'), member('ok-2')])).json.importedCount).toBe(2);
  });

  it('skippedAsNull answers skipped: null when nothing was skipped', async () => {
    await fx.start({ faults: { skippedAsNull: true } });
    expect((await importBatch(fx.sandbox, [member('a')])).json).toEqual({
      importedCount: 1,
      updatedCount: 0,
      skipped: null,
    });
  });
});

describe('faults through /_sandbox/faults', () => {
  it('GET shows them, PATCH changes some, PUT replaces all, bad values are 400', async () => {
    await fx.start({ faults: { latencyMs: 5 } });
    expect((await call(fx.sandbox.url, '/_sandbox/faults')).json).toMatchObject({ latencyMs: 5, failRate: 0 });
    const patched = await call(fx.sandbox.url, '/_sandbox/faults', {
      method: 'PATCH',
      body: JSON.stringify({ failRate: 1 }),
    });
    expect(patched.json).toMatchObject({ latencyMs: 5, failRate: 1 });
    expect((await importBatch(fx.sandbox, [member('a')])).status).toBe(503);
    const replaced = await call(fx.sandbox.url, '/_sandbox/faults', {
      method: 'PUT',
      body: JSON.stringify({ failNext: [{ status: 500 }] }),
    });
    expect(replaced.json).toMatchObject({ latencyMs: 0, failRate: 0, failNext: [{ status: 500 }] });
    const failed = await importBatch(fx.sandbox, [member('a')]);
    expect([failed.status, failed.json.name]).toEqual([500, 'InternalServerError']);
    expect((await importBatch(fx.sandbox, [member('a')])).status).toBe(200);
    for (const bad of [
      { failRate: 2 },
      { nope: 1 },
      { failNext: [{ status: 200 }] },
      { failNext: [{ status: 503, drop: 'after-apply' }] },
    ]) {
      const reply = await call(fx.sandbox.url, '/_sandbox/faults', { method: 'PATCH', body: JSON.stringify(bad) });
      expect(reply.status).toBe(400);
      expect(reply.json.detail).toBeTruthy();
    }
    expect((await call(fx.sandbox.url, '/_sandbox/faults', { method: 'PATCH', body: '{' })).status).toBe(400);
  });
});
