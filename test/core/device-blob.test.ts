import { describe, expect, it } from 'vitest';
import { BLOB_KEYS, mergeBlob, parseDeviceBlob } from '../../src/core/subscribe/device-blob.js';
import { normalizePlatform } from '../../src/core/subscribe/platforms.js';
import { blobError } from '../../src/cli/render/subscribe-blob.js';

const read = (text: string) => {
  const blob = parseDeviceBlob(text);
  if (blob.kind !== 'read') throw new Error(`not read: ${JSON.stringify(blob.problems)}`);
  if (blob.fieldProblems.length > 0) throw new Error(`field problems: ${JSON.stringify(blob.fieldProblems)}`);
  return blob;
};
const values = (json: unknown) =>
  Object.fromEntries(Object.entries(read(JSON.stringify(json)).values).map(([field, v]) => [field, v.value]));

describe('parseDeviceBlob: the keys apps print', () => {
  it('reads the API names', () => {
    expect(read('{"tokenHandle": "t1", "platform": "Apns", "installationId": "i1"}').values).toEqual({
      tokenHandle: { value: 't1', key: 'tokenHandle' },
      platform: { value: 'Apns', key: 'platform' },
      installationId: { value: 'i1', key: 'installationId' },
    });
  });

  it.each(BLOB_KEYS.tokenHandle.keys)('token from %s', (key) =>
    expect(values({ [key]: 'tok' }).tokenHandle).toBe('tok'),
  );
  it.each(BLOB_KEYS.platform.keys)('platform from %s', (key) => expect(values({ [key]: 'ios' }).platform).toBe('ios'));
  it.each([...BLOB_KEYS.installationId.keys, ...BLOB_KEYS.installationId.fallback])('installation id from %s', (key) =>
    expect(values({ [key]: 'inst' }).installationId).toBe('inst'),
  );

  it('ignores case, _ and - in keys', () => {
    expect(values({ installation_id: 'a' }).installationId).toBe('a');
    expect(values({ installationID: 'b' }).installationId).toBe('b');
    expect(values({ 'Installation-Id': 'c' }).installationId).toBe('c');
    expect(values({ DEVICE_TOKEN: 't', OS: 'android' })).toEqual({ tokenHandle: 't', platform: 'android' });
  });

  it('keeps the extra fields out and says which keys it saw', () => {
    const blob = read(
      JSON.stringify({
        userId: 'u1',
        appVersion: '3.2',
        deviceToken: 't',
        os: 'iOS',
        installationId: 'i',
        accessToken: 'secret',
      }),
    );
    expect(blob.values.tokenHandle).toEqual({ value: 't', key: 'deviceToken' });
    expect(blob.keysSeen).toEqual(['userId', 'appVersion', 'deviceToken', 'os', 'installationId', 'accessToken']);
  });

  it('looks one object down when the top level has none, and names the path', () => {
    const blob = read(
      JSON.stringify({ event: 'push_registered', device: { pushToken: 't', platform: 'huawei', installId: 'h1' } }),
    );
    expect(blob.values).toEqual({
      tokenHandle: { value: 't', key: 'device.pushToken' },
      platform: { value: 'huawei', key: 'device.platform' },
      installationId: { value: 'h1', key: 'device.installId' },
    });
    // the same value at both levels is one value (the top level's path is named)
    expect(values({ token: 'same', device: { token: 'same' } }).tokenHandle).toBe('same');
    // two levels down is not looked at
    expect(values({ a: { b: { token: 'deep' } } }).tokenHandle).toBeUndefined();
  });

  it('deviceId counts only when no installation-id key is there', () => {
    expect(values({ deviceId: 'd1' }).installationId).toBe('d1');
    expect(values({ deviceId: 'd1', installationId: 'i1' }).installationId).toBe('i1');
  });

  it('null is absent; a whole-number installation id is taken as its digits', () => {
    expect(values({ deviceToken: 't', installationId: null, deviceId: null })).toEqual({ tokenHandle: 't' });
    expect(values({ installationId: 40213 }).installationId).toBe('40213');
  });

  it('reads the JSON object inside a pasted log line', () => {
    const blob = read(
      '2026-11-25T12:00:01Z INFO push: registered {"deviceToken":"t","os":"android","installation_id":"p1"} (12 ms)',
    );
    expect(blob.values.platform?.value).toBe('android');
    expect(blob.ignoredChars).toBe(51); // the 43 characters before the object and the 8 after it
  });
});

describe('parseDeviceBlob: never a guess', () => {
  const problems = (text: string) => {
    const blob = parseDeviceBlob(text);
    return blob.kind === 'invalid' ? blob.problems : blob.fieldProblems;
  };

  it('two different tokens are an error naming both keys', () => {
    expect(problems('{"apnsToken": "aa", "fcmToken": "bb"}')).toEqual([
      { kind: 'ambiguous', field: 'tokenHandle', keys: ['apnsToken', 'fcmToken'] },
    ]);
    expect(problems('{"device": {"token": "aa"}, "auth": {"token": "bb"}}')).toEqual([
      { kind: 'ambiguous', field: 'tokenHandle', keys: ['device.token', 'auth.token'] },
    ]);
  });

  it('two different tokens at different levels are an error too (the top-level one is often the auth token)', () => {
    expect(problems('{"token": "abc", "device": {"token": "def", "os": "android", "installationId": "i2"}}')).toEqual([
      { kind: 'ambiguous', field: 'tokenHandle', keys: ['token', 'device.token'] },
    ]);
    expect(problems('{"os": "ios", "device": {"platform": "android"}}')).toEqual([
      { kind: 'ambiguous', field: 'platform', keys: ['os', 'device.platform'] },
    ]);
  });

  it('the same value twice, or two spellings of one platform, is no conflict', () => {
    expect(values({ token: 'aa', deviceToken: 'aa' }).tokenHandle).toBe('aa');
    expect(values({ os: 'iOS', platform: 'Apns' }).platform).toBe('iOS');
    expect(problems('{"os": "iOS", "platform": "android"}')).toEqual([
      { kind: 'ambiguous', field: 'platform', keys: ['os', 'platform'] },
    ]);
  });

  it('one key given twice (JSON.parse would keep the last) is an error naming the key, never the values', () => {
    expect(problems('{"token": "aa", "os": "ios", "token": "bb"}')).toEqual([
      { kind: 'repeated', field: 'tokenHandle', key: 'token', line: 1 },
    ]);
    expect(problems('log line: {"device": {"installationId": "1", "os": "ios", "installationId": "2"}} end')).toEqual([
      { kind: 'repeated', field: 'installationId', key: 'device.installationId', line: 1 },
    ]);
    // a key nothing reads may repeat; so may one deeper than the levels read
    expect(values(JSON.parse('{"token": "aa"}'))).toEqual({ tokenHandle: 'aa' });
    expect(
      read('{"token": "aa", "ts": 1, "ts": 2, "a": {"b": {"token": 1, "token": 2}}}').values.tokenHandle?.value,
    ).toBe('aa');
    const error = blobError('blob.json', [{ kind: 'repeated', field: 'tokenHandle', key: 'token', line: 3 }]);
    expect(error.message).toBe(
      '--from blob.json: gives "token" twice (line 3); memberctl does not guess which device token is meant (nothing sent)',
    );
    expect(error.hint).toMatch(/--token-handle/);
  });

  it('a token that is not text is named with what it is', () => {
    expect(problems('{"token": {"value": "x"}}')).toEqual([
      { kind: 'not-text', field: 'tokenHandle', key: 'token', got: 'object' },
    ]);
    expect(problems('{"platform": 3}')).toEqual([
      { kind: 'not-text', field: 'platform', key: 'platform', got: 'number' },
    ]);
  });

  it.each([
    ['', { kind: 'empty' }],
    ['  \n', { kind: 'empty' }],
    ['hello world', { kind: 'not-json', where: '' }],
    ['{"deviceToken": "abc', { kind: 'not-json', where: '(line 1, column 21)' }],
    ["{'deviceToken': 'abc'}", { kind: 'not-json', where: '(line 1, column 2)' }],
    ['[{"token": "t"}]', { kind: 'not-object', got: 'array' }],
    ['"just a token"', { kind: 'not-object', got: 'string' }],
  ])('%j → %j', (text, problem) => expect(problems(text)).toEqual([problem]));

  it('curly quotes (a notes or chat app) are named with where the first one is, not read as JSON quotes', () => {
    expect(problems('{“deviceToken”: “abc”, “os”: “ios”}')).toEqual([{ kind: 'curly-quotes', line: 1, column: 2 }]);
    expect(problems('{\n  “token”: “t”\n}')).toEqual([{ kind: 'curly-quotes', line: 2, column: 3 }]);
    const error = blobError('-', [{ kind: 'curly-quotes', line: 1, column: 2 }]);
    expect(error.message).toContain(
      'it has curly quotes (“ ”, first at line 1, column 2) where JSON needs straight ones',
    );
    expect(error.hint).toContain('retype the quotes');
    // inside a value of real JSON they are text like any other
    expect(read('{"token": "t", "note": "“hi”"}').values.tokenHandle?.value).toBe('t');
  });

  it('deviceType is a platform key, and firebase means FcmV1', () => {
    const blob = read('{"deviceToken": "t", "deviceType": "firebase", "installationId": "i"}');
    expect(blob.values.platform).toEqual({ value: 'firebase', key: 'deviceType' });
    expect(normalizePlatform('firebase')).toBe('FcmV1');
    expect(normalizePlatform('Firebase')).toBe('FcmV1');
  });

  it('a byte-order mark is not content', () =>
    expect(read('\uFEFF{"token": "t"}').values.tokenHandle?.value).toBe('t'));
});

describe('parseDeviceBlob: lines and columns are where the person sees them in what they pasted', () => {
  const problems = (text: string) => {
    const blob = parseDeviceBlob(text);
    return blob.kind === 'invalid' ? blob.problems : blob.fieldProblems;
  };

  it('blank lines before the paste count (they are in the file or the terminal)', () => {
    expect(problems('\n\n{“token”: “t”}')).toEqual([{ kind: 'curly-quotes', line: 3, column: 2 }]);
    expect(problems('\uFEFF\n{\n  "token": "a",\n  "token": "b"\n}\n')).toEqual([
      { kind: 'repeated', field: 'tokenHandle', key: 'token', line: 4 },
    ]);
  });

  it('in a log line: a syntax error or a curly quote of the object, not of the log text around it', () => {
    expect(problems('12:00 INFO registered {"token": "t",}')).toEqual([
      { kind: 'not-json', where: '(line 1, column 37)' },
    ]);
    expect(problems('12:00 said “hi” {“token”: “t”}')).toEqual([{ kind: 'curly-quotes', line: 1, column: 18 }]);
    expect(problems('12:00 said “hi”\nnext {"device": {"token": "a",\n "token": "b"}}')).toEqual([
      { kind: 'repeated', field: 'tokenHandle', key: 'device.token', line: 3 },
    ]);
    // log text with curly quotes around an object that is JSON is no problem
    expect(read('12:00 said “hi” {"token": "t"}').values.tokenHandle?.value).toBe('t');
    expect(read('12:00 said “hi” {"token": "t"}').ignoredChars).toBe(16);
  });

  it('a syntax error says where, never what (JSON.parse would quote a character of a token pasted by mistake)', () => {
    const [problem] = problems('{"token": "zq9x" zq9x}');
    expect(problem).toEqual({ kind: 'not-json', where: '(line 1, column 18)' });
    const error = blobError('-', [problem!]);
    expect(error.message).toBe(
      '--from -: is not JSON (line 1, column 18); expected an object such as {"tokenHandle": "…", "platform": "ios", "installationId": "…"} (nothing sent)',
    );
    // JSON.parse's own words here would be "Unexpected token 'z', \"{\"token\": zq9x}\" is not valid JSON"
    const bare = blobError('-', problems('{"token": zq9x}'));
    for (const said of [error, bare])
      expect(`${said.message} ${said.hint} ${JSON.stringify(said.details)}`).not.toMatch(/zq9x|'z'/);
  });
});

describe('mergeBlob: flags win', () => {
  it('fills only what the flags left out and reports a flag that replaced a different blob value', () => {
    const blob = read('{"deviceToken": "t", "os": "android", "installationId": "from-blob"}');
    const merged = mergeBlob({ customerId: 'c', installationId: 'from-flag', platform: 'FcmV1' }, blob);
    expect(merged.draft).toEqual({ customerId: 'c', tokenHandle: 't', platform: 'FcmV1', installationId: 'from-flag' });
    expect(merged.sources).toEqual({ tokenHandle: 'deviceToken' });
    // --platform FcmV1 is what "android" means: no note; the installation id differs: a note
    expect(merged.overridden).toEqual([{ field: 'installationId', key: 'installationId' }]);
    expect(merged.problems).toEqual([]);
  });

  it("a field's problem in the blob is moot when a flag gives that field", () => {
    const blob = parseDeviceBlob('{"apnsToken": "a", "fcmToken": "b", "os": "ios"}');
    if (blob.kind !== 'read') throw new Error('not read');
    expect(mergeBlob({ customerId: 'c' }, blob).problems).toEqual([
      { kind: 'ambiguous', field: 'tokenHandle', keys: ['apnsToken', 'fcmToken'] },
    ]);
    expect(mergeBlob({ customerId: 'c', tokenHandle: 'a' }, blob).problems).toEqual([]);
  });
});
