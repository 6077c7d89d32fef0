import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, importBatch, member, sandboxFixture, subscribe } from './helpers.js';

const fx = sandboxFixture();
beforeEach(() => fx.start());
afterEach(() => fx.stop());

describe('admin API under /_sandbox/', () => {
  it('lists members in pages and gets one; 404 for unknown or erased', async () => {
    await importBatch(
      fx.sandbox,
      Array.from({ length: 25 }, (_, i) => member(`m${String(i).padStart(2, '0')}`)),
    );
    const page = await call(fx.sandbox.url, '/_sandbox/members?offset=10&limit=5');
    expect(page.json).toMatchObject({ total: 25, offset: 10, limit: 5 });
    expect(page.json.members.map((m: any) => m.memberId)).toEqual(['m10', 'm11', 'm12', 'm13', 'm14']);
    expect((await call(fx.sandbox.url, '/_sandbox/members')).json.members).toHaveLength(25);
    expect((await call(fx.sandbox.url, '/_sandbox/members/m03')).json).toEqual(member('m03'));
    const unknown = await call(fx.sandbox.url, '/_sandbox/members/nobody');
    expect([unknown.status, unknown.json.erased]).toEqual([404, false]);
    expect((await call(fx.sandbox.url, '/_sandbox/members/m03', { method: 'DELETE' })).status).toBe(204);
    const erased = await call(fx.sandbox.url, '/_sandbox/members/m03');
    expect([erased.status, erased.json.erased, erased.json.detail]).toEqual([404, true, 'member m03 was erased']);
  });

  it('erasing an id never imported skips it later too', async () => {
    expect((await call(fx.sandbox.url, '/_sandbox/members/future', { method: 'DELETE' })).status).toBe(204);
    expect((await importBatch(fx.sandbox, [member('future')])).json.skipped).toEqual([
      { memberId: 'future', reason: 'member erased' },
    ]);
  });

  it('stats: per endpoint and status, items, largest batch, most requests in flight at once', async () => {
    await importBatch(fx.sandbox, [member('a'), member('b'), member('c')]);
    await importBatch(fx.sandbox, [member('a')]);
    await importBatch(fx.sandbox, [{ memberId: 'bad' }]);
    await fx.sandbox.setFaults({ latencyMs: 400 });
    await Promise.all([member('x'), member('y'), member('z'), member('w')].map((m) => importBatch(fx.sandbox, [m])));
    await call(fx.sandbox.url, '/nowhere');
    await subscribe(fx.sandbox, 'c', { tokenHandle: 't', platform: 'Fcm', installationId: 'i' });
    const stats = (await call(fx.sandbox.url, '/_sandbox/stats')).json;
    expect(stats).toMatchObject({
      byEndpoint: {
        'POST /member/v1/members/import': { 200: 6, 400: 1 },
        unmatched: { 404: 1 },
        'POST /push/v1/customers/{customerId}/subscription': { 204: 1 },
      },
      itemsReceived: 9,
      importedCount: 7,
      updatedCount: 1,
      skippedCount: 0,
      largestBatch: 3,
      maxInFlight: 4,
      members: 7,
      subscriptions: 1,
      droppedConnections: 0,
    });
    expect(stats.requests).toBe(10);
    const log = (await call(fx.sandbox.url, '/_sandbox/requests?limit=3')).json.requests;
    expect(log.map((e: any) => e.endpoint)).toContain('unmatched');
    expect(log).toHaveLength(3);
  });

  it('stats.ordering counts items sharing a memberId within a request, and across requests in flight together', async () => {
    await importBatch(fx.sandbox, [member('a'), member('b'), member('a')]);
    expect(fx.sandbox.stats().ordering).toEqual({ duplicateInBatch: 1, overlapping: 0 });
    fx.sandbox.setFaults({ latencyMs: 400 });
    await Promise.all([
      importBatch(fx.sandbox, [member('x'), member('y')]),
      importBatch(fx.sandbox, [member('x'), member('z')]),
    ]);
    await importBatch(fx.sandbox, [member('x')]);
    expect(fx.sandbox.stats().ordering).toEqual({ duplicateInBatch: 1, overlapping: 1 });
  });

  it('reset empties the store, erasures, subscriptions and statistics', async () => {
    await importBatch(fx.sandbox, [member('a')]);
    await call(fx.sandbox.url, '/_sandbox/members/a', { method: 'DELETE' });
    await subscribe(fx.sandbox, 'c', { tokenHandle: 't', platform: 'Fcm', installationId: 'i' });
    expect((await call(fx.sandbox.url, '/_sandbox/reset', { method: 'POST' })).status).toBe(204);
    const stats = fx.sandbox.stats();
    expect(stats).toMatchObject({ members: 0, erasedMembers: 0, subscriptions: 0, itemsReceived: 0 });
    expect((await importBatch(fx.sandbox, [member('a')])).json.importedCount).toBe(1);
  });

  it('an index of the admin endpoints, and 405 with Allow', async () => {
    expect((await call(fx.sandbox.url, '/_sandbox')).json.endpoints).toContain('POST /_sandbox/reset');
    const wrong = await call(fx.sandbox.url, '/_sandbox/reset');
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'POST']);
    expect((await call(fx.sandbox.url, '/_sandbox/faults', { method: 'DELETE' })).headers.allow).toBe(
      'GET, PUT, PATCH',
    );
  });
});
