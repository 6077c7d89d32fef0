import { describe, expect, it } from 'vitest';
import { subscribeDevice, type SubscribeEvent } from '../../src/core/subscribe/subscribe-device.js';
import { pushRetryPolicy } from '../../src/http/retry-policy.js';
import { reply, startScriptedServer } from '../http/scripted-server.js';

const APNS = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const retry = { ...pushRetryPolicy(), retries: 1, minDelayMs: 1, maxDelayMs: 2 };
const nowhere = { baseUrl: new URL('http://127.0.0.1:9/'), token: 't', timeoutMs: 2000, retry };

describe('subscribeDevice: the subscribe use case in one call', () => {
  it('asks only for what is missing, checks, sends, and reports the outcome with its category, events in order', async () => {
    const server = await startScriptedServer([reply(503, 'busy'), reply(200, { status: 'Subscribed' })]);
    const asked: unknown[] = [];
    const events: SubscribeEvent['type'][] = [];
    let watching = 0;
    try {
      const report = await subscribeDevice(
        {
          draft: { customerId: 'c 1', tokenHandle: ` <${APNS}> ` },
          cleanToken: true,
          target: { baseUrl: server.url, token: 't', timeoutMs: 2000, retry },
        },
        {
          ask: async (draft) => (asked.push(draft), { ...draft, platform: 'ios', installationId: 'i1' }),
          watchStop: () => (watching++, () => watching--),
        },
        (event) => events.push(event.type),
      );
      expect(asked).toEqual([{ customerId: 'c 1', tokenHandle: ` <${APNS}> ` }]);
      expect(report).toMatchObject({
        kind: 'subscribed',
        category: 'ok',
        customerId: 'c 1',
        installationId: 'i1',
        platform: 'Apns',
        retries: 1,
      });
      expect(events).toEqual(['cleaned-token', 'sending', 'retry']);
      expect(watching).toBe(0);
      expect(server.received.at(-1)).toMatchObject({ url: '/push/v1/customers/c%201/subscription' });
      expect(JSON.parse(server.received.at(-1)!.body)).toEqual({
        tokenHandle: APNS,
        platform: 'Apns',
        installationId: 'i1',
      });
    } finally {
      await server.close();
    }
  });

  it('a cancelled question sends nothing: category cancelled', async () => {
    const report = await subscribeDevice(
      { draft: { customerId: 'c1' }, target: nowhere },
      { ask: async () => 'cancelled' },
    );
    expect(report).toEqual({ kind: 'cancelled', category: 'cancelled' });
  });

  it('invalid or still-missing values send nothing: every problem as data, category usage', async () => {
    let sent = false;
    const report = await subscribeDevice(
      { draft: { customerId: 'c1', tokenHandle: APNS, platform: 'iso' }, target: nowhere },
      { watchStop: () => ((sent = true), () => undefined) },
    );
    expect(report).toEqual({
      kind: 'invalid',
      category: 'usage',
      problems: [
        { field: 'platform', kind: 'unknown', value: 'iso', suggestion: { platform: 'Apns', alias: 'ios' } },
        { field: 'installationId', kind: 'missing' },
      ],
    });
    expect(sent).toBe(false);
  });

  it('credentials refused: category credentials; the warnings come before the send', async () => {
    const server = await startScriptedServer([reply(401, { title: 'Unauthorized', status: 401 })]);
    const events: SubscribeEvent[] = [];
    try {
      const report = await subscribeDevice(
        {
          draft: { customerId: 'c1', tokenHandle: APNS, platform: 'Fcm', installationId: 'i1' },
          target: { ...nowhere, baseUrl: server.url },
        },
        {},
        (event) => events.push(event),
      );
      expect(report).toMatchObject({ kind: 'credentials', category: 'credentials', status: 401 });
      expect(events.map((event) => event.type)).toEqual(['warning', 'warning', 'sending']);
    } finally {
      await server.close();
    }
  });
});
