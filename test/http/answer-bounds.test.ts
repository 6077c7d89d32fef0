/**
 * A hostile server's answer cannot hold a client for ever or fill its memory: a subscribe success body is read to
 * 64 KiB (dropped past 1 MiB), and every body, import's too, must arrive whole within the attempt's timeout, not
 * only without a long gap (a server trickling a byte just inside the gap timeout would hold the read for ever).
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MemberApiClient } from '../../src/http/member-api.js';
import { PushApiClient } from '../../src/http/push-api.js';
import { memberRetryPolicy, pushRetryPolicy } from '../../src/http/retry-policy.js';
import { reply, startScriptedServer, type ScriptedServer, type Step } from './scripted-server.js';

const REQUEST = { tokenHandle: 'a1b2c3d4', platform: 'Apns' as const, installationId: 'inst-1' };
const NO_RETRY = { ...pushRetryPolicy(), retries: 0 };

let server: ScriptedServer | undefined;
let clients: { close(): Promise<void>; destroy(): Promise<void> }[] = [];
afterEach(async () => {
  for (const client of clients) await client.destroy();
  await server?.close();
  clients = [];
  server = undefined;
});

async function pushClient(steps: Step[], timeoutMs = 5000): Promise<PushApiClient> {
  server = await startScriptedServer(steps);
  const client = new PushApiClient({ baseUrl: server.url, token: 'opaque-push', timeoutMs, retry: NO_RETRY });
  clients.push(client);
  return client;
}

/** 64 KiB chunks for as long as the client reads (stops when it goes away). */
const endless: Step = (_q, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const more = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  more();
};

/** The headers, a start of a body, then `next` each time the timer fires (nothing: a stall). */
function trickle(everyMs: number, next?: string): Step {
  return (_q, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"importedCount": 0, ');
    if (next === undefined) return;
    const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(next)), everyMs);
    res.on('close', () => clearInterval(timer));
  };
}

describe('subscribe: a success body is read to what its answer needs', () => {
  it('a small 2xx body is a success', async () => {
    const client = await pushClient([reply(200, { ...REQUEST, id: 'sub-1' })]);
    expect(await client.subscribe('c1', REQUEST)).toEqual({ kind: 'ok', status: 200 });
  });

  it('an endless 200 body ends in one line, not confirmed, after at most ~1 MiB read', async () => {
    const client = await pushClient([endless]);
    const response = await client.subscribe('c1', REQUEST);
    expect(response).toMatchObject({ kind: 'failed', status: 200, cause: { kind: 'http', reachedServer: true } });
    const message = response.kind === 'failed' ? response.message : '';
    expect(message).toMatch(/^HTTP 200 but the body is larger than the 64 KiB a subscribe answer may be \(\d+ bytes/);
    expect(message).not.toContain('\n');
    const read = Number(/\((\d+) bytes/.exec(message)![1]);
    expect(read).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
  });

  it('a 3 MiB 200 body fails alike', async () => {
    const client = await pushClient([reply(200, `{"x": "${'a'.repeat(3 * 1024 * 1024)}"}`)]);
    expect(await client.subscribe('c1', REQUEST)).toMatchObject({ kind: 'failed', status: 200 });
  });
});

describe('a body that never ends arriving', () => {
  it('subscribe: headers, then a stall mid-body: a timeout', async () => {
    const client = await pushClient([trickle(0)], 300);
    const response = await client.subscribe('c1', REQUEST);
    expect(response).toMatchObject({ kind: 'failed', cause: { kind: 'network', code: 'timeout' } });
    expect(response.kind === 'failed' && response.message).toContain('timed out reading the response body');
  });

  it('subscribe: a byte at a time, each inside the gap timeout: a timeout for the whole body', async () => {
    const client = await pushClient([trickle(20, ' ')], 400);
    const response = await client.subscribe('c1', REQUEST);
    expect(response).toMatchObject({ kind: 'failed', cause: { kind: 'network', code: 'timeout' } });
  });

  it('import: the same bound, retried like any timeout', async () => {
    server = await startScriptedServer([
      trickle(20, ' '),
      reply(200, { importedCount: 1, updatedCount: 0, skipped: [] }),
    ]);
    const retry = { ...memberRetryPolicy(1), minDelayMs: 1, maxDelayMs: 5 };
    const client = new MemberApiClient({ baseUrl: server.url, token: 'jwt', connections: 1, timeoutMs: 400, retry });
    clients.push(client);
    expect(await client.postImport(Buffer.from('[{}]'))).toMatchObject({ kind: 'ok', status: 200 });
    expect(server.received).toHaveLength(2);
  });
});
