import { describe, expect, it } from 'vitest';
import { FaultEngine } from '../../src/sandbox/faults.js';
import { checkContentType } from '../../src/sandbox/http-util.js';
import { mergeFaults, defaultFaults } from '../../src/sandbox/options.js';
import {
  authorizeMember,
  authorizePush,
  bearerToken,
  checkJwt,
  generateMemberToken,
  generatePushToken,
} from '../../src/sandbox/tokens.js';
import { craftJwt } from './helpers.js';

const policy = { memberToken: generateMemberToken(), pushToken: generatePushToken(), strict: false };

describe('tokens', () => {
  it('the generated member token is a JWT valid for a day, the push token opaque', () => {
    const [header, payload, signature] = policy.memberToken.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(86_400);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(policy.pushToken.split('.')).toHaveLength(1);
    expect(generatePushToken()).not.toBe(policy.pushToken);
  });
  it('bearer parsing', () => {
    expect(bearerToken('Bearer abc')).toEqual({ token: 'abc' });
    expect(bearerToken('BEARER abc')).toEqual({ token: 'abc' });
    expect(bearerToken('Bearer a b')).toEqual({ reason: 'malformed bearer token' });
    expect(bearerToken('Basic abc')).toEqual({ reason: 'Authorization scheme must be Bearer' });
    expect(bearerToken(undefined)).toMatchObject({ reason: expect.stringMatching(/missing/) });
  });
  it('JWT shape and time claims; exp exactly now is expired', () => {
    expect(checkJwt(craftJwt({ exp: 100 }), 99)).toEqual({ ok: true });
    expect(checkJwt(craftJwt({ exp: 100 }), 100)).toEqual({ ok: false, reason: 'token expired' });
    expect(checkJwt(craftJwt({ exp: 'soon' }), 0)).toEqual({ ok: false, reason: 'token expired' });
    expect(checkJwt(craftJwt({}, { typ: 'JWT' }), 0).ok).toBe(false);
    expect(checkJwt('a.b', 0).ok).toBe(false);
    expect(checkJwt(`${craftJwt({}).split('.').slice(0, 2).join('.')}.`, 0)).toEqual({ ok: true });
  });
  it("strict mode accepts only the sandbox's own tokens", () => {
    const strict = { ...policy, strict: true };
    expect(authorizeMember(`Bearer ${policy.memberToken}`, strict).ok).toBe(true);
    expect(authorizeMember(`Bearer ${craftJwt({})}`, strict).ok).toBe(false);
    expect(authorizePush(`Bearer ${policy.pushToken}`, strict).ok).toBe(true);
    expect(authorizePush('Bearer other', strict).ok).toBe(false);
    expect(authorizePush('Bearer other', policy).ok).toBe(true);
  });
});

describe('content types', () => {
  it('json family with an optional UTF-8 charset', () => {
    expect(checkContentType('application/problem+json').ok).toBe(true);
    expect(checkContentType('application/json-patch+json').ok).toBe(true);
    expect(checkContentType('application/jsonx').ok).toBe(false);
    expect(checkContentType('application/json; charset=utf-16').ok).toBe(false);
    expect(checkContentType('text/plain', ['text/plain']).ok).toBe(true);
    expect(checkContentType(undefined).ok).toBe(false);
  });
});

describe('fault settings', () => {
  it('validates and merges', () => {
    expect(mergeFaults(defaultFaults(), { latencyMs: 20 }).latencyMs).toBe(20);
    expect(() => mergeFaults(defaultFaults(), { latencyMs: -1 })).toThrow(/whole number/);
    expect(() => mergeFaults(defaultFaults(), { failNext: [{}] })).toThrow(/exactly one of/);
    expect(() => mergeFaults(defaultFaults(), { failNext: [{ status: 503, extra: 1 }] })).toThrow(/not a fault field/);
    expect(() => mergeFaults(defaultFaults(), [])).toThrow(/JSON object/);
  });
  it('the rate window: N per window, Retry-After the seconds left (at least 1), a new window after a second', () => {
    const engine = new FaultEngine(1, { rateLimit: 2 });
    const at = (ms: number) => engine.decide('import', engine.draw(), ms);
    expect([at(0).kind, at(10).kind]).toEqual(['none', 'none']);
    expect(at(20)).toMatchObject({ kind: 'status', status: 429, retryAfter: 1 });
    expect(at(1000).kind).toBe('none');
    const slow = new FaultEngine(1, { rateLimit: 1 });
    slow.decide('import', slow.draw(), 0);
    expect(slow.decide('import', slow.draw(), 999)).toMatchObject({ retryAfter: 1 });
  });
});
