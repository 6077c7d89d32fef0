import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { problemSchema } from '../../src/schemas/index.js';
import { call, IMPORT, sandboxFixture, subscribe, subscriptionPath } from './helpers.js';

const fx = sandboxFixture();
beforeEach(() => fx.start());
afterEach(() => fx.stop());
const request = { tokenHandle: 'fcm-handle-1', platform: 'FcmV1', installationId: 'inst-1' };

function expectProblem(
  reply: { status: number; headers: Record<string, unknown>; json: any },
  status: number,
  instance: string,
) {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(reply.json);
  expect(problem).toMatchObject({
    status,
    instance,
    title: expect.any(String),
    type: expect.any(String),
    detail: expect.any(String),
  });
  return problem;
}

describe('POST /push/v1/customers/{customerId}/subscription', () => {
  it('204 with no body, stored per customer and installation; subscribing again replaces', async () => {
    const first = await subscribe(fx.sandbox, 'cust/1', request);
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    await subscribe(fx.sandbox, 'cust/1', { ...request, tokenHandle: 'fcm-handle-2' });
    await subscribe(fx.sandbox, 'cust/1', { ...request, installationId: 'inst-2', platform: 'Apns' });
    await subscribe(fx.sandbox, 'cust-2', request);
    const list = await call(fx.sandbox.url, '/_sandbox/subscriptions?customerId=cust%2F1');
    expect(list.json.total).toBe(2);
    expect(
      list.json.subscriptions.map((s: any) => [s.customerId, s.installationId, s.tokenHandle, s.platform]),
    ).toEqual([
      ['cust/1', 'inst-1', 'fcm-handle-2', 'FcmV1'],
      ['cust/1', 'inst-2', 'fcm-handle-1', 'Apns'],
    ]);
    expect(fx.sandbox.subscriptions()).toHaveLength(3);
  });

  for (const type of [
    'application/json-patch+json',
    'application/json',
    'text/json',
    'application/x.device+json; charset=utf-8',
  ]) {
    it(`accepts ${type}`, async () => {
      expect((await subscribe(fx.sandbox, 'c', request, { 'content-type': type })).status).toBe(204);
    });
  }

  it('415 problem for another content type', async () => {
    expectProblem(
      await subscribe(fx.sandbox, 'c', request, { 'content-type': 'text/plain' }),
      415,
      '/push/v1/customers/c/subscription',
    );
  });

  it('401 problem: missing, wrong scheme, malformed; any opaque token is accepted', async () => {
    const path = subscriptionPath('c');
    for (const authorization of [undefined, 'Token abc', 'Bearer two words', 'Bearer ']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization !== undefined) headers.authorization = authorization;
      expectProblem(
        await call(fx.sandbox.url, path, { method: 'POST', headers, body: JSON.stringify(request) }),
        401,
        path,
      );
    }
    expect((await subscribe(fx.sandbox, 'c', request, { authorization: 'Bearer some-opaque-token' })).status).toBe(204);
  });

  it('with strictTokens the member JWT is not a push token', async () => {
    await fx.stop();
    const sandbox = await fx.start({ strictTokens: true });
    expect((await subscribe(sandbox, 'c', request, { authorization: `Bearer ${sandbox.memberToken}` })).status).toBe(
      401,
    );
    expect((await subscribe(sandbox, 'c', request)).status).toBe(204);
  });

  it('400 problem with per-field errors for a bad request; nothing stored', async () => {
    const reply = await subscribe(fx.sandbox, 'c', {
      tokenHandle: '',
      platform: 'Windows',
      installationId: 'x'.repeat(51),
    });
    const problem = expectProblem(reply, 400, '/push/v1/customers/c/subscription');
    expect(Object.keys(reply.json.errors).sort()).toEqual(['installationId', 'platform', 'tokenHandle']);
    expect(problem.detail).toMatch(/tokenHandle/);
    expectProblem(await subscribe(fx.sandbox, 'c', '{"tokenHandle":'), 400, '/push/v1/customers/c/subscription');
    expect(fx.sandbox.subscriptions()).toEqual([]);
  });
});

describe('deprecated endpoints', () => {
  const endpoints: [string, string, string | undefined][] = [
    ['POST', '/v1/checkin/store-12', undefined],
    ['POST', '/v1/checkin/store-12/register-member', undefined],
    ['POST', '/v1/payments', undefined],
    ['POST', '/v1/payments/init', undefined],
    ['GET', '/v1/games/current', '</v1/games>; rel="successor-version"'],
  ];
  for (const [method, path, link] of endpoints) {
    it(`${method} ${path}: 501 problem saying so, Deprecation header${link ? ', Link to the successor' : ''}`, async () => {
      const reply = await call(fx.sandbox.url, path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      const problem = expectProblem(reply, 501, path);
      expect(problem.detail).toMatch(/deprecated/);
      expect(problem.detail).toMatch(link ? /use GET \/v1\/games/ : /V2 equivalent/);
      expect(reply.headers.deprecation).toBe('true');
      expect(reply.headers.link).toBe(link);
    });
  }
  it('GET /v1/games exists with an unknown shape: 501, not deprecated', async () => {
    const reply = await call(fx.sandbox.url, '/v1/games');
    expectProblem(reply, 501, '/v1/games');
    expect(reply.headers.deprecation).toBeUndefined();
  });
});

describe('404 and 405', () => {
  it('404 problem+json for unknown paths', async () => {
    for (const path of [
      '/',
      '/v2/payments',
      '/member/v1/members',
      '/push/v1/customers//subscription',
      '/member/v1/members/import/',
    ]) {
      expectProblem(await call(fx.sandbox.url, path), 404, path);
    }
  });
  it('405 with Allow for a known path and a wrong method', async () => {
    const importGet = await call(fx.sandbox.url, IMPORT);
    expectProblem(importGet, 405, IMPORT);
    expect(importGet.headers.allow).toBe('POST');
    const games = await call(fx.sandbox.url, '/v1/games/current', { method: 'POST', body: '{}' });
    expectProblem(games, 405, '/v1/games/current');
    expect(games.headers.allow).toBe('GET');
    const push = await call(fx.sandbox.url, subscriptionPath('c'), { method: 'PUT', body: '{}' });
    expect(push.headers.allow).toBe('POST');
  });
});
