import { afterEach, describe, expect, it } from 'vitest';
import { PushApiClient, formatProblem, subscriptionPath } from '../../src/http/push-api.js';
import { pushRetryPolicy } from '../../src/http/retry-policy.js';
import type { RetryInfo } from '../../src/http/member-api.js';
import { reply, startScriptedServer, type ScriptedServer, type Step } from './scripted-server.js';

const TOKEN = 'opaque-push-token-123456';
const REQUEST = { tokenHandle: 'a1b2c3d4', platform: 'Apns' as const, installationId: 'inst-1' };
const FAST = { ...pushRetryPolicy(), minDelayMs: 1, maxDelayMs: 5 };

let server: ScriptedServer | undefined;
let client: PushApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(steps: Step[], fallback?: Step) {
  server = await startScriptedServer(steps, fallback);
  const retries: RetryInfo[] = [];
  client = new PushApiClient({
    baseUrl: server.url,
    token: TOKEN,
    timeoutMs: 5000,
    retry: FAST,
    onRetry: (i) => retries.push(i),
  });
  return { server, client, retries };
}

const problem =
  (status: number, title: string, detail: string) => (_q: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/problem+json' });
    res.end(
      JSON.stringify({
        type: 'https://example.com/problems/x',
        title,
        status,
        detail,
        instance: '/push/v1/customers/c1/subscription',
      }),
    );
  };

describe('PushApiClient', () => {
  it('posts the subscription as JSON to the customer path; any 2xx is success', async () => {
    const { server, client } = await setup([reply(201, ''), reply(204, ''), reply(200, { ok: true })]);
    expect(await client.subscribe('c1', REQUEST)).toEqual({ kind: 'ok', status: 201 });
    expect(await client.subscribe('c1', REQUEST)).toEqual({ kind: 'ok', status: 204 });
    expect(await client.subscribe('c1', REQUEST)).toEqual({ kind: 'ok', status: 200 });
    const [req] = server.received;
    expect(req).toMatchObject({ method: 'POST', url: '/push/v1/customers/c1/subscription' });
    expect(JSON.parse(req!.body)).toEqual(REQUEST);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('percent-encodes the customer id so reserved characters stay in one segment', async () => {
    const id = 'a/b?c#d e%f';
    const { server, client } = await setup([reply(204, '')]);
    await client.subscribe(id, REQUEST);
    expect(server.received[0]!.url).toBe('/push/v1/customers/a%2Fb%3Fc%23d%20e%25f/subscription');
    expect(decodeURIComponent(server.received[0]!.url.split('/')[4]!)).toBe(id);
  });

  it('a customer id of "." or ".." stays a segment instead of climbing the path', async () => {
    expect(subscriptionPath('..')).toBe('push/v1/customers/%2E%2E/subscription');
    const { server, client } = await setup([reply(204, ''), reply(204, '')]);
    await client.subscribe('..', REQUEST);
    await client.subscribe('.', REQUEST);
    expect(server.received.map((r) => r.url)).toEqual([
      '/push/v1/customers/%2E%2E/subscription',
      '/push/v1/customers/%2E/subscription',
    ]);
  });

  it('maps a problem+json 4xx to problem, not retried', async () => {
    const { server, client } = await setup([
      problem(400, 'Invalid platform', 'platform must be one of Apns, Fcm, FcmV1, Hms'),
    ]);
    const response = await client.subscribe('c1', REQUEST);
    expect(response).toMatchObject({
      kind: 'problem',
      status: 400,
      problem: { title: 'Invalid platform', status: 400 },
    });
    expect(response.kind === 'problem' && formatProblem(response.problem)).toBe(
      'Invalid platform: platform must be one of Apns, Fcm, FcmV1, Hms (400)',
    );
    expect(server.received).toHaveLength(1);
  });

  it('summarizes a non-JSON error body briefly', async () => {
    const html = `<html><head><title>404 Not Found</title></head><body>${'<p>filler</p>'.repeat(500)}</body></html>`;
    const { client } = await setup([
      (_q, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end(html);
      },
    ]);
    const response = await client.subscribe('c1', REQUEST);
    expect(response.kind).toBe('problem');
    if (response.kind !== 'problem') return;
    const text = formatProblem(response.problem);
    expect(text).toContain('404 Not Found');
    expect(text).not.toContain('<');
    expect(text.length).toBeLessThan(300);
  });

  it('retries 503 then succeeds; 500 is reported, not retried', async () => {
    const { server, client, retries } = await setup([
      reply(503, '', { 'retry-after': '0' }),
      reply(204, ''),
      problem(500, 'Internal', 'boom'),
    ]);
    expect(await client.subscribe('c1', REQUEST)).toEqual({ kind: 'ok', status: 204 });
    expect(retries.map((r) => r.reason)).toEqual(['503']);
    const failed = await client.subscribe('c1', REQUEST);
    expect(failed).toMatchObject({ kind: 'failed', status: 500, message: 'Internal: boom (500)' });
    expect(server.received).toHaveLength(3);
  });

  it('gives up after a few retries and keeps the last problem', async () => {
    const { server, client } = await setup([], problem(503, 'Unavailable', 'hub down'));
    const response = await client.subscribe('c1', REQUEST);
    expect(response).toMatchObject({ kind: 'failed', status: 503, retries: 3, problem: { title: 'Unavailable' } });
    expect(server.received).toHaveLength(4);
  });

  it('maps 401/403 to auth and never repeats the token from an echoing server', async () => {
    const echo: Step = (req, res) => {
      res.writeHead(401, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({ title: 'Unauthorized', status: 401, detail: `bad header ${req.headers.authorization}` }),
      );
    };
    const { client } = await setup([echo, reply(403, 'Forbidden')]);
    const first = await client.subscribe('c1', REQUEST);
    expect(first).toMatchObject({ kind: 'auth', status: 401 });
    expect(JSON.stringify(first)).not.toContain(TOKEN);
    expect(first.kind === 'auth' && first.message).toBe('Unauthorized: bad header Bearer [redacted] (401)');
    expect(await client.subscribe('c1', REQUEST)).toMatchObject({ kind: 'auth', status: 403 });
  });
});
