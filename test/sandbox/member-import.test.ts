import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importResultSchema, memberErrorSchema } from '../../src/schemas/index.js';
import { call, craftJwt, IMPORT, importBatch, member, sandboxFixture } from './helpers.js';

const fx = sandboxFixture();
beforeEach(() => fx.start());
afterEach(() => fx.stop());
const now = () => Math.floor(Date.now() / 1000);

describe('POST /member/v1/members/import: auth', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['missing', {}, /missing Authorization/],
    ['wrong scheme', { authorization: 'Basic dXNlcjpwYXNz' }, /scheme must be Bearer/],
    ['empty bearer', { authorization: 'Bearer ' }, /empty bearer token/],
    ['not a JWT', { authorization: 'Bearer opaque-token-123' }, /malformed JWT/],
    [
      'payload not JSON',
      { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.bm90LWpzb24.c2ln' },
      /payload is not a JSON object/,
    ],
    ['expired', { authorization: `Bearer ${craftJwt({ sub: 'u', exp: now() - 60 })}` }, /token expired/],
    ['not valid yet', { authorization: `Bearer ${craftJwt({ sub: 'u', nbf: now() + 3600 })}` }, /not valid yet/],
  ];
  for (const [name, headers, message] of cases) {
    it(`401 with the error object: ${name}`, async () => {
      const reply = await call(fx.sandbox.url, IMPORT, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify([member('a')]),
      });
      expect(reply.status).toBe(401);
      expect(memberErrorSchema.parse(reply.json).message).toMatch(message);
      expect(reply.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
      expect(fx.sandbox.memberCount()).toBe(0);
    });
  }

  it('accepts any well-formed unexpired JWT (signature not checked), scheme in any case', async () => {
    const token = craftJwt({ sub: 'someone', exp: now() + 60 }, { alg: 'none', typ: 'JWT' });
    const reply = await importBatch(fx.sandbox, [member('a')], { authorization: `bearer ${token}` });
    expect(reply.status).toBe(200);
  });

  it('checks credentials before the body: an empty array with a good token is 400, with a bad one 401', async () => {
    expect((await importBatch(fx.sandbox, [])).status).toBe(400);
    expect((await importBatch(fx.sandbox, [], { authorization: 'Bearer x.y' })).status).toBe(401);
  });

  it('with strictTokens only its own member token passes', async () => {
    await fx.stop();
    const sandbox = await fx.start({ strictTokens: true });
    expect(
      (await importBatch(sandbox, [member('a')], { authorization: `Bearer ${craftJwt({ sub: 'x' })}` })).json.message,
    ).toMatch(/not issued by this sandbox/);
    expect((await importBatch(sandbox, [member('a')])).status).toBe(200);
  });
});

describe('content types', () => {
  for (const type of [
    'application/json',
    'text/json',
    'application/vnd.member+json',
    'application/json; charset=utf-8',
    'Application/JSON;charset="UTF-8"',
  ]) {
    it(`accepts ${type}`, async () => {
      expect((await importBatch(fx.sandbox, [member('a')], { 'content-type': type })).status).toBe(200);
    });
  }
  for (const type of ['text/plain', 'application/xml', 'application/json; charset=latin1', 'multipart/form-data']) {
    it(`415 for ${type}`, async () => {
      const reply = await importBatch(fx.sandbox, [member('a')], { 'content-type': type });
      expect(reply.status).toBe(415);
      expect(reply.json.name).toBe('UnsupportedMediaType');
    });
  }
  it('a UTF-8 byte order mark before the JSON is accepted', async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify([member('bom', { firstName: 'Åse' })])),
    ]);
    expect(
      (
        await call(fx.sandbox.url, IMPORT, {
          method: 'POST',
          headers: { authorization: `Bearer ${fx.sandbox.memberToken}`, 'content-type': 'application/json' },
          body,
        })
      ).status,
    ).toBe(200);
    expect(fx.sandbox.getMember('bom')?.firstName).toBe('Åse');
  });
  it('415 without a content type', async () => {
    const reply = await call(fx.sandbox.url, IMPORT, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.sandbox.memberToken}` },
      body: '[]',
    });
    expect(reply.status).toBe(415);
  });
});

describe('bad bodies → 400 error object', () => {
  it('not JSON', async () => {
    const reply = await importBatch(fx.sandbox, '[{"memberId": "a",');
    expect(reply.status).toBe(400);
    expect(memberErrorSchema.parse(reply.json).message).toMatch(/not valid JSON/);
  });
  it('not an array, and an empty array', async () => {
    expect((await importBatch(fx.sandbox, member('a'))).json.message).toMatch(/must be a JSON array/);
    expect((await importBatch(fx.sandbox, [])).json.message).toMatch(/at least 1/);
  });
  it('details name each bad item by index, memberId and field path; nothing of the batch is applied', async () => {
    const reply = await importBatch(fx.sandbox, [
      member('good'),
      member('zip', { address: { zipCode: '123456789' } }),
      { ...member('extra'), nickname: 'x' },
      { isActive: true, createdAt: 'yesterday' },
    ]);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      name: 'ValidationError',
      message: '3 of 4 items are invalid.',
      details: [
        { index: 1, memberId: 'zip', field: 'address.zipCode', message: expect.any(String) },
        { index: 2, memberId: 'extra', field: 'nickname', message: expect.stringMatching(/Unrecognized key/) },
        { index: 3, memberId: null, field: 'memberId', message: 'required field is missing' },
        { index: 3, memberId: null, field: 'createdAt', message: expect.any(String) },
      ],
    });
    expect(fx.sandbox.memberCount()).toBe(0);
  });
});

describe('limits → 413', () => {
  it('more items than maxItems', async () => {
    await fx.stop();
    const sandbox = await fx.start({ maxItems: 3 });
    expect((await importBatch(sandbox, [member('a'), member('b'), member('c')])).status).toBe(200);
    const reply = await importBatch(sandbox, [member('d'), member('e'), member('f'), member('g')]);
    expect(reply.status).toBe(413);
    expect(reply.json.details).toEqual({ maxItems: 3, items: 4 });
  });
  it('a body larger than maxBodyBytes, answered as a 413 the client can read, then the connection still works', async () => {
    await fx.stop();
    const sandbox = await fx.start({ maxBodyBytes: 2048 });
    const big = Array.from({ length: 200 }, (_, i) => member(`m${i}`));
    const reply = await importBatch(sandbox, big);
    expect(reply.status).toBe(413);
    expect(reply.json.details).toEqual({ maxBodyBytes: 2048 });
    expect((await importBatch(sandbox, [member('a')])).status).toBe(200);
    expect(sandbox.memberCount()).toBe(1);
  });
});

it('a 6 MiB body against the default 4 MiB limit: 413, drained rather than reset', async () => {
  const padding = 'x'.repeat(60);
  const big = Array.from({ length: 40_000 }, (_, i) => member(`m${i}`, { metadata: { padding } }));
  const body = JSON.stringify(big);
  expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
  const reply = await importBatch(fx.sandbox, body);
  expect(reply.status).toBe(413);
  expect(fx.sandbox.memberCount()).toBe(0);
});

describe('upsert semantics', () => {
  it('imports unknown members, updates known ones; omitted fields kept, null clears, address merges per field', async () => {
    const first = await importBatch(fx.sandbox, [
      member('a', { email: 'a@x.io', phone: '123', address: { city: 'Oslo', zipCode: '0150' }, metadata: { k: 'v' } }),
      member('b'),
    ]);
    expect(importResultSchema.parse(first.json)).toEqual({ importedCount: 2, updatedCount: 0, skipped: [] });
    const second = await importBatch(fx.sandbox, [
      member('a', { phone: null, address: { city: 'Bergen' }, metadata: { other: null } }),
      member('c'),
    ]);
    expect(second.json).toEqual({ importedCount: 1, updatedCount: 1, skipped: [] });
    expect(fx.sandbox.getMember('a')).toEqual(
      member('a', {
        email: 'a@x.io',
        phone: null,
        address: { city: 'Bergen', zipCode: '0150' },
        metadata: { other: null },
      }),
    );
  });
  it('a memberId twice in one batch: applied in order, counted once imported and once updated', async () => {
    const reply = await importBatch(fx.sandbox, [member('d', { firstName: 'One' }), member('d', { firstName: 'Two' })]);
    expect(reply.json).toEqual({ importedCount: 1, updatedCount: 1, skipped: [] });
    expect(fx.sandbox.getMember('d')?.firstName).toBe('Two');
  });
  it('skips a member erased through the admin API with reason "member erased", for good', async () => {
    await importBatch(fx.sandbox, [member('gone')]);
    expect((await call(fx.sandbox.url, '/_sandbox/members/gone', { method: 'DELETE' })).status).toBe(204);
    const reply = await importBatch(fx.sandbox, [member('gone'), member('new')]);
    expect(reply.json).toEqual({
      importedCount: 1,
      updatedCount: 0,
      skipped: [{ memberId: 'gone', reason: 'member erased' }],
    });
    expect(fx.sandbox.getMember('gone')).toBeUndefined();
  });
  it('keeps own __proto__ keys of metadata as data', async () => {
    const body = '[{"memberId":"p","isActive":true,"createdAt":"2024-05-01T12:00:00Z","metadata":{"__proto__":"x"}}]';
    expect((await importBatch(fx.sandbox, body)).status).toBe(200);
    expect(Object.keys(fx.sandbox.getMember('p')!.metadata!)).toEqual(['__proto__']);
  });
});

describe('unexpected failure', () => {
  it('500 with the error object and no stack trace', async () => {
    const lines: string[] = [];
    await fx.stop();
    const sandbox = await fx.start({ log: (line) => lines.push(line), faults: { failNext: [{ throw: true }] } });
    const reply = await importBatch(sandbox, [member('a')]);
    expect(reply.status).toBe(500);
    expect(memberErrorSchema.parse(reply.json).name).toBe('InternalServerError');
    expect(reply.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(lines.join('\n')).toMatch(/injected unexpected error/);
    expect((await importBatch(sandbox, [member('a')])).status).toBe(200);
  });
});

describe('a client that goes away mid-body', () => {
  it('is logged as dropped, nothing applied, no error logged, and the sandbox keeps serving', async () => {
    const { connect } = await import('node:net');
    const lines: string[] = [];
    await fx.stop();
    const sandbox = await fx.start({ log: (line) => lines.push(line) });
    const socket = connect(sandbox.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${IMPORT} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sandbox.memberToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{"memberId":`,
    );
    // the sandbox has the request (headers and part of the body) before the client goes away
    while (sandbox.stats().inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    while (sandbox.stats().inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sandbox.stats().byEndpoint[`POST ${IMPORT}`]).toEqual({ dropped: 1 });
    expect((await importBatch(sandbox, [member('a')])).status).toBe(200);
    expect(sandbox.memberCount()).toBe(1);
    expect(lines).toEqual([]);
  });
});
