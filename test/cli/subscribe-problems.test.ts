import { describe, expect, it } from 'vitest';
import {
  invalidSubscriptionError,
  missingError,
  problemText,
  problemsHint,
} from '../../src/cli/render/subscribe-problems.js';
import { platformList } from '../../src/cli/render/subscribe-words.js';
import type { SubscriptionProblem } from '../../src/core/subscribe/index.js';

const installation51: SubscriptionProblem = { field: 'installationId', kind: 'too-long', length: 51, limit: 50 };
const token256: SubscriptionProblem = { field: 'tokenHandle', kind: 'too-long', length: 256, limit: 255 };

describe('subscribe problems in words', () => {
  it('each length problem names its field, its limit and the length, as the value was given', () => {
    expect(problemText(installation51)).toBe('--installation-id is 51 characters long; the API allows 1 to 50');
    expect(problemText(installation51, 'prompt')).toBe('installation id is 51 characters long; the API allows 1 to 50');
    expect(problemText(installation51, { blobKey: 'installation_id' })).toBe(
      'installation id ("installation_id" in the --from blob) is 51 characters long; the API allows 1 to 50',
    );
    expect(problemText(token256)).toBe('--token-handle is 256 characters long; the API allows 1 to 255');
    expect(problemText({ field: 'tokenHandle', kind: 'empty', length: 0, limit: 255 })).toBe(
      '--token-handle is empty (the API needs 1 to 255 characters)',
    );
    expect(problemText({ field: 'customerId', kind: 'empty' })).toBe('CUSTOMER_ID is empty');
    expect(problemText({ field: 'customerId', kind: 'dot-segment', value: '..' })).toBe(
      'CUSTOMER_ID ".." is only dots or spaces: in the URL path a server may read it as . or .. and reach another resource',
    );
    expect(problemsHint([{ field: 'customerId', kind: 'surrounding-space', value: ' c1', trimmed: 'c1' }])).toBe(
      'without them the id is "c1": pass that',
    );
    const spaced: SubscriptionProblem = {
      field: 'installationId',
      kind: 'surrounding-space',
      value: ' i1 ',
      trimmed: 'i1',
    };
    expect(problemText(spaced)).toBe(
      '--installation-id " i1 " has spaces around it, which would be sent as part of the id',
    );
    expect(problemsHint([spaced])).toBe('without them the id is "i1": pass that');
  });

  it('a pasted token with debris names it, and the hint is the cleaned value', () => {
    const debris: SubscriptionProblem = {
      field: 'tokenHandle',
      kind: 'pasted-debris',
      platform: 'FcmV1',
      cleaned: 'ab:APA91b',
    };
    expect(problemText(debris)).toBe(
      '--token-handle holds spaces, angle brackets or quotes (as pasted from a log); a FcmV1 token is not cleaned by guesswork',
    );
    expect(problemsHint([debris])).toBe(
      'without them the token is ab:APA91b: pass that, or add --clean-token to send it cleaned',
    );
  });

  it('a near-miss platform gets "did you mean", with the everyday word it was near', () => {
    expect(
      problemText({ field: 'platform', kind: 'unknown', value: 'iso', suggestion: { platform: 'Apns', alias: 'ios' } }),
    ).toBe('--platform "iso" is not a platform; did you mean Apns (ios)?');
    expect(problemText({ field: 'platform', kind: 'unknown', value: 'apn', suggestion: { platform: 'Apns' } })).toBe(
      '--platform "apn" is not a platform; did you mean Apns?',
    );
    expect(problemText({ field: 'platform', kind: 'unknown', value: 'windows' })).toBe(
      '--platform "windows" is not a platform',
    );
    expect(problemText({ field: 'platform', kind: 'unknown', value: '  ' })).toBe('--platform is empty');
  });

  it('a platform value is shown quoted and cut short, control characters escaped', () => {
    const text = problemText({ field: 'platform', kind: 'unknown', value: `\u001b[31m${'x'.repeat(60)}` });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\u001b[31m');
    expect(text).toContain('…"');
  });

  it('the platform list names the aliases the guide uses', () => {
    const list = platformList();
    for (const word of ['Apns (ios', 'FcmV1 (android, firebase)', 'Hms (huawei', 'Fcm (legacy Android, deprecated)'])
      expect(list).toContain(word);
    expect(list).not.toContain('(Android (deprecated))');
  });

  it('the hint speaks of the wrong fields only: a long installation id gets no platform list', () => {
    expect(problemsHint([installation51])).not.toContain('platforms:');
    expect(problemsHint([installation51])).toContain('not the device token');
    expect(problemsHint([{ field: 'platform', kind: 'unknown', value: 'x' }])).toContain('platforms: Apns (ios');
    expect(problemsHint([token256, installation51]).split('; ').length).toBeGreaterThanOrEqual(2);
  });

  it('the usage error carries the problems as data for --json', () => {
    const error = invalidSubscriptionError([installation51]);
    expect(error.category).toBe('usage');
    expect(error.code).toBe('invalid-subscription');
    expect(error.message).toBe(
      'invalid subscription, nothing sent: --installation-id is 51 characters long; the API allows 1 to 50',
    );
    expect(error.details).toEqual({ problems: [installation51] });
    expect(missingError(['platform', 'customerId']).message).toBe(
      'missing CUSTOMER_ID, --platform (no terminal to ask on; nothing sent)',
    );
  });
});
