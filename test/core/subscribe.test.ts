import { describe, expect, it } from 'vitest';
import {
  checkSubscription,
  cleanToken,
  normalizePlatform,
  sendSubscription,
  suggestPlatform,
  tokenWarnings,
  type SubscriptionDraft,
} from '../../src/core/subscribe/index.js';
import { pushRetryPolicy } from '../../src/http/retry-policy.js';
import { reply, startScriptedServer } from '../http/scripted-server.js';

const APNS = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const FCM = `dXk3R2pTQ0e:APA91b${'Hq3fK9xLmN2pQ7rS'.repeat(9)}`;

describe('normalizePlatform', () => {
  it.each([
    ['apns', 'Apns'],
    ['APNS', 'Apns'],
    [' Apns ', 'Apns'],
    ['fcmv1', 'FcmV1'],
    ['FCM_V1', 'FcmV1'],
    ['fcm-v1', 'FcmV1'],
    ['Fcm V1', 'FcmV1'],
    ['fcm', 'Fcm'],
    ['HMS', 'Hms'],
    ['ios', 'Apns'],
    ['android', 'FcmV1'],
    ['huawei', 'Hms'],
  ])('%s → %s', (typed, expected) => expect(normalizePlatform(typed)).toBe(expected));

  it.each(['', 'gcm', 'fcmv2', 'windows', 'apn'])('rejects %j', (typed) =>
    expect(normalizePlatform(typed)).toBeUndefined(),
  );
});

describe('cleanToken and tokenWarnings', () => {
  it('strips what a log adds around an APNs token', () => {
    expect(cleanToken('<a1b2 c3d4\te5f6>')).toBe('a1b2c3d4e5f6');
    expect(cleanToken('"abc:APA91b-x"')).toBe('abc:APA91b-x');
  });

  it('a clean 64-digit APNs token and a typical FCM token raise nothing', () => {
    expect(tokenWarnings('Apns', APNS)).toEqual([]);
    expect(tokenWarnings('Apns', APNS.toUpperCase())).toEqual([]);
    expect(tokenWarnings('Apns', APNS + APNS)).toEqual([]); // longer tokens exist: do not insist on 64
    expect(tokenWarnings('FcmV1', FCM)).toEqual([]);
    expect(tokenWarnings('Fcm', FCM)).toEqual([]);
  });

  it('warns about tokens that look like another platform or not like a token at all', () => {
    expect(tokenWarnings('Apns', FCM).join()).toContain('looks like an FCM token');
    expect(tokenWarnings('Apns', 'zz-not-hex').join()).toContain('hexadecimal');
    expect(tokenWarnings('Apns', 'abc').join()).toContain('3 hex digits is unusual');
    expect(tokenWarnings('FcmV1', APNS).join()).toContain('is the platform Apns?');
    expect(tokenWarnings('FcmV1', 'short:APA91b').join()).toContain('unusually short');
    expect(tokenWarnings('FcmV1', 'no colon here').join()).toContain('<id>:APA91b');
    expect(tokenWarnings('Hms', FCM).join()).toContain('FCM token');
  });
});

describe('suggestPlatform', () => {
  it.each([
    ['iso', { platform: 'Apns', alias: 'ios' }],
    ['IOS ', undefined], // an exact alias is not a near miss (normalizePlatform takes it)
    ['andriod', { platform: 'FcmV1', alias: 'android' }],
    ['andr', { platform: 'FcmV1', alias: 'android' }],
    ['huwei', { platform: 'Hms', alias: 'huawei' }],
    ['apn', { platform: 'Apns' }],
    ['fcmv2', { platform: 'FcmV1' }],
  ] as const)('%j → %j', (typed, expected) => {
    if (expected === undefined) expect(normalizePlatform(typed)).toBe('Apns');
    else expect(suggestPlatform(typed)).toEqual(expected);
  });

  it.each(['windows', 'x', '', 'blackberry'])('suggests nothing for %j', (typed) =>
    expect(suggestPlatform(typed)).toBeUndefined(),
  );
});

/** checkSubscription's result, asserted ready. */
function ready(draft: SubscriptionDraft, options?: { cleanToken?: boolean }) {
  const checked = checkSubscription(draft, options);
  if (checked.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(checked.problems)}`);
  return checked;
}

describe('checkSubscription', () => {
  const draft = { customerId: 'c1', tokenHandle: APNS, platform: 'apns', installationId: 'i1' };

  it('normalizes into the request the API takes', () => {
    expect(checkSubscription(draft)).toEqual({
      kind: 'ready',
      customerId: 'c1',
      request: { tokenHandle: APNS, platform: 'Apns', installationId: 'i1' },
      warnings: [],
    });
  });

  it('warns that Fcm is deprecated', () => {
    expect(ready({ ...draft, tokenHandle: FCM, platform: 'FCM' }).warnings.join()).toContain(
      'deprecated in favour of FcmV1',
    );
  });

  it('with cleanToken sends the cleaned token and remembers what was typed', () => {
    const prepared = ready({ ...draft, tokenHandle: ` <${APNS}> ` }, { cleanToken: true });
    expect(prepared.request.tokenHandle).toBe(APNS);
    expect(prepared.cleanedFrom).toBe(` <${APNS}> `);
    expect(prepared.warnings).toEqual([]);
  });

  it('bounds are checked on what is sent: a cleaned token of 255 passes even if typed longer', () => {
    const long = `<${'a'.repeat(255)}>`;
    expect(checkSubscription({ ...draft, tokenHandle: long, platform: 'FcmV1' })).toEqual({
      kind: 'invalid',
      problems: [{ field: 'tokenHandle', kind: 'too-long', length: 257, limit: 255 }],
    });
    expect(
      ready({ ...draft, tokenHandle: long, platform: 'FcmV1' }, { cleanToken: true }).request.tokenHandle,
    ).toHaveLength(255);
    // Apns: cleaned by itself, and 255 hex digits is no APNs token's length (see below)
    expect(checkSubscription({ ...draft, tokenHandle: long })).toMatchObject({ kind: 'invalid' });
  });

  it("iOS 13's shortened description of the token ({length=32,bytes=0x…}) is refused on any platform", () => {
    for (const platform of ['apns', 'FcmV1'])
      expect(checkSubscription({ ...draft, platform, tokenHandle: '{length=32,bytes=0xa1b2c3d4...a3b4c5d6}' })).toEqual(
        { kind: 'invalid', problems: [{ field: 'tokenHandle', kind: 'truncated-description' }] },
      );
    expect(checkSubscription({ ...draft, tokenHandle: '{length = 32, bytes = 0xa1b2 … c5d6}' }).kind).toBe('invalid');
  });

  it('an APNs token that memberctl cleaned must have a real token length: 64 to 200 hex digits, even', () => {
    expect(checkSubscription({ ...draft, tokenHandle: '<a1b2 c3d4>' })).toEqual({
      kind: 'invalid',
      problems: [{ field: 'tokenHandle', kind: 'implausible-apns-length', hexDigits: 8 }],
    });
    expect(checkSubscription({ ...draft, tokenHandle: `<${APNS.slice(1)}>` })).toMatchObject({ kind: 'invalid' });
    expect(ready({ ...draft, tokenHandle: `<${APNS}${APNS}>` }).request.tokenHandle).toBe(APNS + APNS);
    // typed as plain hex, a short token is sent as written, with a warning (the push hub judges its tokens)
    expect(ready({ ...draft, tokenHandle: 'a1b2c3d4' }).warnings.join()).toContain('8 hex digits is unusual');
  });

  it('a cleaned token with an opening < and no closing > says that the paste may be cut short', () => {
    const prepared = ready({ ...draft, tokenHandle: `<${APNS}` });
    expect(prepared.request.tokenHandle).toBe(APNS);
    expect(prepared.warnings.join()).toContain('angle bracket without its partner');
  });

  it('an APNs token in the old iOS description format (<a1b2c3d4 e5f6…>) is sent without brackets and spaces', () => {
    const pasted = `<${APNS.match(/.{8}/g)!.join(' ')}>`;
    const prepared = ready({ ...draft, tokenHandle: pasted });
    expect(prepared.request.tokenHandle).toBe(APNS);
    expect(prepared.cleanedFrom).toBe(pasted);
    expect(prepared.warnings).toEqual([]);
  });

  it('debris around a token memberctl cannot tell for sure is refused, the cleaned value given as the hint', () => {
    const pasted = ` <${FCM}> `;
    expect(checkSubscription({ ...draft, tokenHandle: pasted, platform: 'android' })).toEqual({
      kind: 'invalid',
      problems: [{ field: 'tokenHandle', kind: 'pasted-debris', platform: 'FcmV1', cleaned: FCM }],
    });
    // on Apns too, when what is inside is not hex
    expect(checkSubscription({ ...draft, tokenHandle: '<zz 11>' })).toMatchObject({
      kind: 'invalid',
      problems: [{ kind: 'pasted-debris', platform: 'Apns', cleaned: 'zz11' }],
    });
    expect(
      ready({ ...draft, tokenHandle: pasted, platform: 'android' }, { cleanToken: true }).request.tokenHandle,
    ).toBe(FCM);
  });

  it('returns every problem at once, as data', () => {
    const checked = checkSubscription({
      customerId: '',
      tokenHandle: 'x'.repeat(256),
      platform: 'iso',
      installationId: 'y'.repeat(51),
    });
    expect(checked).toEqual({
      kind: 'invalid',
      problems: [
        { field: 'customerId', kind: 'empty' },
        { field: 'tokenHandle', kind: 'too-long', length: 256, limit: 255 },
        { field: 'platform', kind: 'unknown', value: 'iso', suggestion: { platform: 'Apns', alias: 'ios' } },
        { field: 'installationId', kind: 'too-long', length: 51, limit: 50 },
      ],
    });
  });

  it('a customer id of only dots or whitespace is refused: in the URL path it is a dot segment', () => {
    for (const customerId of ['.', '..', ' ', '. .', '\t'])
      expect(checkSubscription({ ...draft, customerId })).toEqual({
        kind: 'invalid',
        problems: [{ field: 'customerId', kind: 'dot-segment', value: customerId }],
      });
    expect(ready({ ...draft, customerId: 'a.b' }).customerId).toBe('a.b');
    expect(ready({ ...draft, customerId: '...x' }).customerId).toBe('...x');
  });

  it('a customer id with spaces around it is refused, never trimmed by guesswork', () => {
    expect(checkSubscription({ ...draft, customerId: ' c1 ' })).toEqual({
      kind: 'invalid',
      problems: [{ field: 'customerId', kind: 'surrounding-space', value: ' c1 ', trimmed: 'c1' }],
    });
    expect(ready({ ...draft, customerId: 'c 1' }).customerId).toBe('c 1');
  });

  it('an installation id with spaces around it is refused too: trimmed or not, it would name another device', () => {
    for (const installationId of [' inst-1 ', 'inst-1\t', '\u00a0inst-1'])
      expect(checkSubscription({ ...draft, installationId })).toEqual({
        kind: 'invalid',
        problems: [{ field: 'installationId', kind: 'surrounding-space', value: installationId, trimmed: 'inst-1' }],
      });
    expect(ready({ ...draft, installationId: 'inst 1' }).request.installationId).toBe('inst 1');
  });

  it('missing values are problems of their own', () => {
    expect(checkSubscription({ customerId: 'c1' })).toEqual({
      kind: 'invalid',
      problems: ['tokenHandle', 'platform', 'installationId'].map((field) => ({ field, kind: 'missing' })),
    });
  });
});

describe('sendSubscription: why a subscription is not confirmed, from the cause as data', () => {
  const prepared = () =>
    ready({
      customerId: 'c1',
      tokenHandle: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
      platform: 'apns',
      installationId: 'i1',
    });
  const retry = { ...pushRetryPolicy(), retries: 1, minDelayMs: 1, maxDelayMs: 2 };

  it('a server never reached (connection refused): not confirmed, and known to have stored nothing', async () => {
    const closed = await startScriptedServer([]);
    await closed.close();
    const outcome = await sendSubscription({ baseUrl: closed.url, token: 't', timeoutMs: 2000, retry }, prepared());
    expect(outcome).toMatchObject({ kind: 'not-confirmed', retries: 1, reachedServer: false });
    expect(outcome.kind === 'not-confirmed' && outcome.problem.detail).toMatch(
      /ECONNREFUSED.*; gave up after 1 retry$/,
    );
  });

  it('a 503 every time: the status as the title, the retry count in words, and the server may have stored it', async () => {
    const server = await startScriptedServer([], reply(503, 'busy'));
    try {
      const outcome = await sendSubscription({ baseUrl: server.url, token: 't', timeoutMs: 2000, retry }, prepared());
      expect(outcome).toMatchObject({
        kind: 'not-confirmed',
        status: 503,
        reachedServer: true,
        problem: { title: 'HTTP 503', detail: 'busy (text/plain, 4 bytes); gave up after 1 retry' },
      });
    } finally {
      await server.close();
    }
  });
});
