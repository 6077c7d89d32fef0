/** The sandbox's capacity model: `capacity` requests served at once, `queueLimit` more waiting, the rest 503. */
import { afterEach, describe, expect, it } from 'vitest';
import { CapacityGate } from '../../src/sandbox/capacity.js';
import { call, importBatch, IMPORT, member, sandboxFixture } from './helpers.js';

const fx = sandboxFixture();
afterEach(() => fx.stop());

/** Polls a condition the server reaches on its own (no fixed sleep: returns as soon as it holds). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('capacity gate', () => {
  it('serves `capacity` at once, queues up to `queueLimit` first come first served, refuses the rest', async () => {
    const settings = { capacity: 2, queueLimit: 2 };
    const gate = new CapacityGate(() => settings);
    const first = await (gate.enter() as Promise<() => void>);
    const second = await (gate.enter() as Promise<() => void>);
    const order: string[] = [];
    const third = (gate.enter() as Promise<() => void>).then((release) => (order.push('third'), release));
    const fourth = (gate.enter() as Promise<() => void>).then((release) => (order.push('fourth'), release));
    expect(gate.enter()).toBe('full');
    expect(gate.snapshot()).toEqual({ serving: 2, waiting: 2, maxWaiting: 2, refused: 1 });
    first();
    first(); // a second release of the same slot changes nothing
    (await third)();
    expect(order).toEqual(['third']);
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(gate.snapshot()).toEqual({ serving: 0, waiting: 0, maxWaiting: 2, refused: 1 });
  });

  it('admits waiting requests at once when the capacity is raised; 0 means no limit', async () => {
    const settings = { capacity: 1, queueLimit: 5 };
    const gate = new CapacityGate(() => settings);
    await gate.enter();
    const waiting = gate.enter() as Promise<() => void>;
    expect(gate.snapshot().waiting).toBe(1);
    settings.capacity = 0;
    gate.admit();
    await waiting;
    expect(gate.snapshot()).toMatchObject({ serving: 2, waiting: 0 });
    for (let i = 0; i < 20; i++) expect(gate.enter()).not.toBe('full');
  });
});

describe('sandbox --capacity', () => {
  it('queues past the capacity, answers 503 with Retry-After past the queue, and changes at run time', async () => {
    await fx.start({ faults: { capacity: 2, queueLimit: 1, latencyMs: 1500 } });
    const replies = [0, 1, 2].map((i) => importBatch(fx.sandbox, [member(`m${i}`)]));
    await until(() => fx.sandbox.stats().capacity.waiting === 1);
    expect(fx.sandbox.stats().capacity).toMatchObject({ serving: 2, waiting: 1 });

    const refused = await importBatch(fx.sandbox, [member('m3')]);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json).toEqual({
      name: 'ServiceUnavailable',
      message: expect.stringContaining('Over capacity: 2 requests served at once and 1 waiting'),
      details: null,
    });

    // raised at run time: the waiting request is served at once, beside the two already in service
    const patched = await call(fx.sandbox.url, '/_sandbox/faults', {
      method: 'PATCH',
      body: JSON.stringify({ capacity: 3 }),
    });
    expect(patched.json).toMatchObject({ capacity: 3, queueLimit: 1, latencyMs: 1500 });
    expect(fx.sandbox.stats().capacity).toMatchObject({ serving: 3, waiting: 0 });

    expect((await Promise.all(replies)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(fx.sandbox.memberCount()).toBe(3);
    expect(fx.sandbox.stats().byEndpoint[`POST ${IMPORT}`]).toEqual({ 200: 3, 503: 1 });
    expect(fx.sandbox.stats().capacity).toEqual({ serving: 0, waiting: 0, maxWaiting: 1, refused: 1 });
    const log = (await call(fx.sandbox.url, '/_sandbox/requests')).json.requests as {
      status: number;
      fault?: string;
    }[];
    expect(log.find((r) => r.status === 503)?.fault).toBe('capacity');
  });

  it('checks the settings like every fault', async () => {
    await fx.start();
    const reply = await call(fx.sandbox.url, '/_sandbox/faults', {
      method: 'PATCH',
      body: JSON.stringify({ capacity: -1 }),
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('capacity must be a whole number');
  });
});
