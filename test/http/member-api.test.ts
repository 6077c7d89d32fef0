import { afterEach, describe, expect, it } from 'vitest';
import { MemberApiClient, type RetryInfo } from '../../src/http/member-api.js';
import { ERROR_BODY_KEEP_BYTES, importResultMaxBytes } from '../../src/http/response-body.js';
import { memberRetryPolicy, type RetryPolicy } from '../../src/http/retry-policy.js';
import { reply, startScriptedServer, type ScriptedServer, type Step } from './scripted-server.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.SIGNATURE-xyz';
const OK = { importedCount: 1, updatedCount: 0, skipped: null };
const BODY_JSON = JSON.stringify([{ memberId: 'm1', isActive: true, createdAt: '2024-01-01T00:00:00Z' }]);
/** As the pipeline hands it over: the JSON array as UTF-8 bytes. */
const BODY = new TextEncoder().encode(BODY_JSON);
/** Fast retries: the behaviour is the same, the tests just do not wait half a second per retry. */
const FAST: RetryPolicy = { ...memberRetryPolicy(3), minDelayMs: 1, maxDelayMs: 5 };

let server: ScriptedServer | undefined;
let client: MemberApiClient | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await server?.close();
  client = server = undefined;
});

async function setup(
  steps: Step[],
  options: { retry?: RetryPolicy; timeoutMs?: number; connections?: number; fallback?: Step; path?: string } = {},
) {
  server = await startScriptedServer(steps, options.fallback);
  const retries: RetryInfo[] = [];
  client = new MemberApiClient({
    baseUrl: new URL(options.path ?? '/', server.url),
    token: TOKEN,
    connections: options.connections ?? 2,
    timeoutMs: options.timeoutMs ?? 5000,
    retry: options.retry ?? FAST,
    onRetry: (info) => retries.push(info),
  });
  return { server, client, retries };
}

describe('MemberApiClient: sending', () => {
  it('POSTs the body with JSON, bearer and user-agent headers under the base path', async () => {
    const { server, client } = await setup([reply(200, OK)], { path: '/api/' });
    const response = await client.postImport(BODY);
    expect(response).toEqual({ kind: 'ok', status: 200, result: OK });
    const [req] = server.received;
    expect(req).toMatchObject({ method: 'POST', url: '/api/member/v1/members/import', body: BODY_JSON });
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.accept).toBe('application/json');
    expect(req!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req!.headers['user-agent']).toMatch(/^memberctl\/\d+\.\d+\.\d+/);
  });

  it('retries 503, 503 then succeeds, sending the same body each time', async () => {
    const { server, client, retries } = await setup([reply(503, 'busy'), reply(503, 'busy'), reply(200, OK)]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    expect(server.received.map((r) => r.body)).toEqual([BODY_JSON, BODY_JSON, BODY_JSON]);
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, '503'],
      [2, '503'],
    ]);
    expect(client.stats).toEqual({ requests: 3, retries: 2 });
  });

  it.each([429, 500, 502, 504])('retries %i', async (status) => {
    const { client, retries } = await setup([reply(status, { name: 'X', message: 'later' }), reply(200, OK)]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    expect(retries[0]?.reason).toBe(String(status));
  });

  it('honours Retry-After in seconds over its own backoff', async () => {
    const { server, client, retries } = await setup([reply(503, '', { 'retry-after': '1' }), reply(200, OK)]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    expect(retries[0]?.delayMs).toBe(1000);
    expect(server.received[1]!.at - server.received[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const date = new Date(Date.now() + 3000).toUTCString();
    const { server, client, retries } = await setup([reply(503, '', { 'retry-after': date }), reply(200, OK)]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    // HTTP dates have whole seconds: the wait is up to 3 s, far above the 5 ms backoff cap.
    expect(retries[0]!.delayMs).toBeGreaterThan(500);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(3000);
    expect(server.received[1]!.at - server.received[0]!.at).toBeGreaterThanOrEqual(retries[0]!.delayMs - 100);
  });

  it('a 429 pauses every request to the server, not only the one that got it', async () => {
    let startOther: (() => void) | undefined;
    const otherStarted = new Promise<void>((resolve) => (startOther = resolve));
    server = await startScriptedServer([reply(429, '', { 'retry-after': '1' })], reply(200, OK));
    const c = new MemberApiClient({
      baseUrl: server.url,
      token: TOKEN,
      connections: 4,
      timeoutMs: 5000,
      retry: FAST,
      onRetry: () => startOther?.(),
    });
    client = c;
    const first = c.postImport(BODY);
    await otherStarted;
    // Sent after the 429 arrived, on a free socket: it must still wait for the pause.
    const second = await c.postImport(BODY);
    expect(second).toMatchObject({ kind: 'ok' });
    expect(await first).toMatchObject({ kind: 'ok' });
    const [throttled, ...later] = server.received;
    expect(later).toHaveLength(2);
    for (const r of later) expect(r.at - throttled!.at).toBeGreaterThanOrEqual(900);
    expect(c.stats).toEqual({ requests: 3, retries: 1 });
  });

  it('a Retry-After beyond the longest wait fails at once instead of hammering early', async () => {
    const { server, client } = await setup([reply(503, '', { 'retry-after': '3600' })], {
      retry: { ...FAST, maxRetryAfterMs: 10_000 },
    });
    const response = await client.postImport(BODY);
    expect(response).toMatchObject({ kind: 'failed', status: 503 });
    expect(response.kind === 'failed' && response.message).toContain('wait 1 h (Retry-After)');
    expect(server.received).toHaveLength(1);
  });
});

describe('MemberApiClient: outcomes', () => {
  it('maps 400 with an error object to bad-request, not retried', async () => {
    const error = { name: 'ValidationError', message: 'memberId m1: email invalid', details: { memberId: 'm1' } };
    const { server, client } = await setup([reply(400, error)]);
    expect(await client.postImport(BODY)).toEqual({ kind: 'bad-request', status: 400, error });
    expect(server.received).toHaveLength(1);
  });

  /** A 200 whose import result is valid JSON of `bytes` bytes or more: one skipped entry with a long reason. */
  function hugeResult(bytes: number): Step {
    const padding = Buffer.alloc(64 * 1024, 'a');
    return (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"importedCount":0,"updatedCount":0,"skipped":[{"memberId":"m1","reason":"');
      let sent = 0;
      const pump = () => {
        while (sent++ < bytes / padding.length + 1) if (!res.write(padding)) return res.once('drain', pump);
        res.end('"}]}');
      };
      res.on('error', () => undefined);
      pump();
    };
  }

  it('says a 200 body past the cap is too large, not what a schema makes of the cut JSON', async () => {
    const { client } = await setup([hugeResult(2 * 1024 * 1024)]);
    const response = await client.postImport(BODY);
    expect(response.kind).toBe('failed');
    if (response.kind !== 'failed') return;
    expect(response.message).toMatch(
      /^HTTP 200 but the body is larger than the 1 MiB an import result may be \(\d+ bytes read/,
    );
    expect(response.message).not.toContain('Invalid input');
    expect(response.cause).toMatchObject({ kind: 'http', status: 200 });
  });

  it("bounds a 200 body by the batch's size: 100 items may answer 1 MiB, not 2 (trial2: 658 MB RSS)", async () => {
    expect(importResultMaxBytes(100)).toBe(1024 * 1024);
    const { client } = await setup([hugeResult(2 * 1024 * 1024)]);
    const response = await client.postImport(BODY, undefined, undefined, 100);
    expect(response).toMatchObject({ kind: 'failed', status: 200 });
    expect(response.kind === 'failed' && response.message).toContain('larger than the 1 MiB an import result may be');
  });

  it('accepts a large result when the batch is large enough to explain it', async () => {
    const items = 1000;
    expect(importResultMaxBytes(items)).toBeGreaterThan(3 * 1024 * 1024);
    const { client } = await setup([hugeResult(2 * 1024 * 1024)]);
    const response = await client.postImport(BODY, undefined, undefined, items);
    expect(response.kind).toBe('ok');
  });

  it('synthesizes a member error from a non-conforming 400 body, summarizing HTML', async () => {
    const html =
      '<!DOCTYPE html><html><head><title>Bad Request</title><style>p{}</style></head><body><p>oops</p></body></html>';
    const { client } = await setup([
      (_q, res) => {
        res.writeHead(400, { 'content-type': 'text/html' });
        res.end(html);
      },
    ]);
    const response = await client.postImport(BODY);
    expect(response.kind).toBe('bad-request');
    if (response.kind !== 'bad-request') return;
    expect(response.error.name).toBe('BadRequest');
    expect(response.error.message).toContain('Bad Request');
    expect(response.error.message).toContain('text/html');
    expect(response.error.message).not.toContain('<');
  });

  it('maps 413 to too-large and 401/403 to auth, none retried', async () => {
    const { server, client } = await setup([
      reply(413, 'Payload Too Large'),
      reply(401, { name: 'Unauthorized', message: 'token expired' }),
      reply(403, ''),
    ]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'too-large', status: 413 });
    expect(await client.postImport(BODY)).toEqual({
      kind: 'auth',
      status: 401,
      message: 'HTTP 401: Unauthorized: token expired',
    });
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'auth', status: 403 });
    expect(server.received).toHaveLength(3);
  });

  it('a 200 whose body is not an import result is failed with a clear message, not retried', async () => {
    const { server, client } = await setup([reply(200, { imported: 1 })]);
    const response = await client.postImport(BODY);
    expect(response).toMatchObject({ kind: 'failed', status: 200, retries: 0 });
    expect(response.kind === 'failed' && response.message).toMatch(/not an import result/);
    expect(server.received).toHaveLength(1);
  });

  it('an unexpected status says what to check', async () => {
    const { client } = await setup([reply(404, 'Not Found')]);
    const response = await client.postImport(BODY);
    expect(response).toMatchObject({ kind: 'failed', status: 404 });
    expect(response.kind === 'failed' && response.message).toContain('check the base URL');
  });

  it('retries exhausted: failed with the status, the reason and the retry count', async () => {
    const { server, client } = await setup([], {
      fallback: reply(503, { name: 'Unavailable', message: 'maintenance' }),
    });
    const response = await client.postImport(BODY);
    expect(response).toMatchObject({ kind: 'failed', status: 503, retries: 3 });
    expect(response.kind === 'failed' && response.message).toBe(
      'HTTP 503: Unavailable: maintenance (gave up after 3 retries)',
    );
    // the cause as data, for core to decide on and count by (never the message parsed back)
    expect(response.kind === 'failed' && response.cause).toEqual({
      kind: 'http',
      status: 503,
      retries: 3,
      gaveUp: true,
      reachedServer: true,
    });
    expect(server.received).toHaveLength(4);
  });

  it('a server naming its error in the message too reads once, not "Unauthorized: Unauthorized: …"', async () => {
    const { client } = await setup([reply(401, { name: 'Unauthorized', message: 'Unauthorized: token expired.' })]);
    expect(await client.postImport(BODY)).toEqual({
      kind: 'auth',
      status: 401,
      message: 'HTTP 401: Unauthorized: token expired.',
    });
  });

  it('caps a huge error body and keeps the message to one short line', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const { client } = await setup([reply(502, big)], { retry: { ...FAST, retries: 0 } });
    const response = await client.postImport(BODY);
    expect(response.kind).toBe('failed');
    expect(response.kind === 'failed' && response.message.length).toBeLessThan(400);
  });
});

describe('MemberApiClient: network', () => {
  it('retries a connection reset mid-request', async () => {
    const { server, client, retries } = await setup(['reset', reply(200, OK)]);
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    expect(server.received).toHaveLength(2);
    expect(retries[0]?.reason).toMatch(/^(ECONNRESET|UND_ERR_SOCKET)$/);
  });

  it('retries a connection cut in the middle of the response body', async () => {
    const cut: Step = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"importedCount":1,');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const { server, client, retries } = await setup([cut, reply(200, OK)]);
    expect(await client.postImport(BODY)).toEqual({ kind: 'ok', status: 200, result: OK });
    expect(server.received).toHaveLength(2);
    expect(retries).toHaveLength(1);
  });

  it('retries a request that timed out waiting for the response', async () => {
    const { server, client, retries } = await setup(['hold', reply(200, OK)], { timeoutMs: 500 });
    expect(await client.postImport(BODY)).toMatchObject({ kind: 'ok' });
    expect(retries[0]?.reason).toBe('timeout');
    expect(server.received.length).toBeGreaterThanOrEqual(2);
  });

  it('connection refused: retried, then failed naming the cause', async () => {
    const closed = await startScriptedServer([]);
    const url = closed.url;
    await closed.close();
    const retries: RetryInfo[] = [];
    client = new MemberApiClient({
      baseUrl: url,
      token: TOKEN,
      connections: 1,
      timeoutMs: 2000,
      retry: { ...FAST, retries: 2 },
      onRetry: (i) => retries.push(i),
    });
    const response = await client.postImport(BODY);
    expect(response).toMatchObject({ kind: 'failed', retries: 2 });
    expect(response.kind === 'failed' && response.message).toContain('ECONNREFUSED');
    expect(response.kind === 'failed' && response.message).toMatch(/\(gave up after 2 retries\)$/);
    // nothing reached the server: nothing can have been stored
    expect(response.kind === 'failed' && response.cause).toEqual({
      kind: 'network',
      code: 'ECONNREFUSED',
      retries: 2,
      gaveUp: true,
      reachedServer: false,
    });
    expect(retries.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('an abort during the backoff wakes the request: failed promptly, nothing more sent', async () => {
    const controller = new AbortController();
    const { server, client } = await setup([reply(503, '', { 'retry-after': '60' })]);
    const c = new MemberApiClient({
      baseUrl: server.url,
      token: TOKEN,
      connections: 1,
      timeoutMs: 5000,
      retry: FAST,
      onRetry: () => controller.abort(),
    });
    const outcome = await Promise.race([
      c.postImport(BODY, controller.signal),
      new Promise((r) => setTimeout(() => r('still waiting'), 5000)),
    ]);
    await c.close();
    expect(outcome).toMatchObject({ kind: 'failed', status: 503, retries: 0 });
    expect((outcome as { message: string }).message).toMatch(/^stopped before retry 1/);
    expect(server.received).toHaveLength(1);
    void client;
  });

  it('an already aborted signal sends nothing', async () => {
    const { server, client } = await setup([reply(200, OK)]);
    expect(await client.postImport(BODY, AbortSignal.abort())).toMatchObject({
      kind: 'failed',
      message: 'not sent: stopped before the request',
    });
    expect(server.received).toHaveLength(0);
  });

  it('a request in flight when the signal aborts is allowed to settle', async () => {
    const controller = new AbortController();
    const { client } = await setup([
      (_q, res) => {
        controller.abort();
        setTimeout(() => reply(200, OK)(_q, res, ''), 50);
      },
    ]);
    expect(await client.postImport(BODY, controller.signal)).toMatchObject({ kind: 'ok' });
  });

  it('destroy fails a request in flight at once', async () => {
    const { client } = await setup(['hold']);
    const pending = client.postImport(BODY);
    await new Promise((r) => setTimeout(r, 100));
    await client.destroy();
    expect(await pending).toMatchObject({ kind: 'failed' });
    expect(((await pending) as { message: string }).message).toMatch(/^cancelled/);
  });

  it('keeps connections alive: many requests, few sockets', async () => {
    const { server, client } = await setup([], { connections: 2, fallback: reply(200, OK) });
    for (let i = 0; i < 10; i++) expect((await client.postImport(BODY)).kind).toBe('ok');
    await Promise.all(Array.from({ length: 10 }, () => client.postImport(BODY)));
    expect(server.received).toHaveLength(20);
    expect(server.sockets).toBeLessThanOrEqual(2);
  });
});

describe('MemberApiClient: the token never leaks', () => {
  const echo: Step = (req, res) => {
    res.writeHead(Number(req.headers['x-status'] ?? 0) || 401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: 'Echo',
        message: `you sent ${req.headers.authorization}`,
        details: { auth: req.headers.authorization },
      }),
    );
  };

  it('redacts a server that echoes the Authorization header, in every outcome', async () => {
    const echoStatus =
      (status: number): Step =>
      (req, res, body) => {
        req.headers['x-status'] = String(status);
        echo(req, res, body);
      };
    const { client } = await setup([echoStatus(401), echoStatus(400), echoStatus(503)], {
      retry: { ...FAST, retries: 0 },
    });
    const outcomes = [await client.postImport(BODY), await client.postImport(BODY), await client.postImport(BODY)];
    expect(outcomes.map((o) => o.kind)).toEqual(['auth', 'bad-request', 'failed']);
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('SIGNATURE-xyz');
    expect(text).toContain('[redacted]');
  });

  it('keeps no beginning of the token when an error body is cut off inside it (past the 64 KiB kept)', async () => {
    // whitespace before the token collapses in the message, so what was kept of the token would be all it shows
    const cutInside: Step = (req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`${' '.repeat(ERROR_BODY_KEEP_BYTES - 40)}${req.headers.authorization} and more`);
    };
    const { client } = await setup([cutInside], { retry: { ...FAST, retries: 0 } });
    const outcome = await client.postImport(BODY);
    expect(outcome.kind).toBe('bad-request');
    expect(JSON.stringify(outcome)).not.toContain(TOKEN.slice(0, 20));
  });
});

describe('redact', () => {
  it('replaces a long token anywhere, a short one only where it stands alone', async () => {
    const { redact } = await import('../../src/http/redact.js');
    expect(redact(`x${TOKEN}y and ${TOKEN}`, TOKEN)).toBe('x[redacted]y and [redacted]');
    expect(redact('502 Bad Gateway; Bearer t.', 't')).toBe('502 Bad Gateway; Bearer [redacted].');
    expect(redact('a+b (a+b)', 'a+b')).toBe('[redacted] ([redacted])');
  });
});
