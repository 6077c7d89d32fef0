import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import {
  configLocation,
  describeProvenance,
  loadConfigFile,
  loadSettings,
  resolveSettings,
  settingValues,
  type ConfigFile,
} from '../src/core/settings/index.js';
import { closest } from '../src/core/settings/suggest.js';

const config: ConfigFile = {
  path: '/etc/memberctl.json',
  data: {
    defaultProfile: 'staging',
    profiles: {
      staging: {
        baseUrl: 'https://staging.example.com',
        tokenFile: '/keys/staging.token',
        batchSize: 200,
        concurrency: 2,
      },
      prod: { baseUrl: 'https://api.example.com', pushTokenFile: '/keys/push.token' },
    },
  },
};

function tempConfig(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-settings-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, content);
  return path;
}

function configErrorMessage(content: string): string {
  const path = tempConfig(content);
  try {
    loadConfigFile({ path, explicit: true });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).category).toBe('usage');
    return `${(error as UsageError).message} | hint: ${(error as UsageError).hint}`;
  }
  throw new Error('expected a config error');
}

describe('precedence: flag > env > profile > default', () => {
  it('takes each setting from the strongest source and says which', () => {
    const settings = resolveSettings({
      flags: { batchSize: 50 },
      env: { MEMBERCTL_BATCH_SIZE: '100', MEMBERCTL_CONCURRENCY: '8' },
      config,
    });
    expect(settings.profile).toEqual({ value: 'staging', source: { kind: 'config', file: '/etc/memberctl.json' } });
    expect(settings.values.batchSize).toEqual({ value: 50, source: { kind: 'flag', flag: '--batch-size' } });
    expect(settings.values.concurrency).toEqual({
      value: 8,
      source: { kind: 'env', variable: 'MEMBERCTL_CONCURRENCY' },
    });
    expect(settings.values.baseUrl).toEqual({
      value: 'https://staging.example.com',
      source: { kind: 'profile', profile: 'staging' },
    });
    expect(settings.values.retries).toEqual({ value: 5, source: { kind: 'default' } });
    expect(settings.values.pushTokenFile).toEqual({ value: undefined, source: { kind: 'default' } });
  });

  it('lets each level win when the stronger ones are absent', () => {
    const base = { env: {}, config };
    expect(resolveSettings({ ...base, flags: { baseUrl: 'https://flag' } }).values.baseUrl.value).toBe('https://flag');
    expect(resolveSettings({ ...base, env: { MEMBERCTL_BASE_URL: 'https://env' } }).values.baseUrl.value).toBe(
      'https://env',
    );
    expect(resolveSettings(base).values.baseUrl.value).toBe('https://staging.example.com');
    expect(resolveSettings({ env: {} }).values.baseUrl.value).toBeUndefined();
    expect(settingValues(resolveSettings({ env: {} }))).toMatchObject({ batchSize: 500, maxBatchBytes: 1048576 });
    // no concurrency by default: the import adapts it to the server unless one is set
    expect(resolveSettings({ env: {} }).values.concurrency).toEqual({ value: undefined, source: { kind: 'default' } });
  });

  it('selects the profile by flag, then MEMBERCTL_PROFILE, then defaultProfile', () => {
    const env = { MEMBERCTL_PROFILE: 'prod' };
    expect(resolveSettings({ env, config, profileFlag: 'staging' }).profile?.source.kind).toBe('flag');
    expect(resolveSettings({ env, config }).profile).toEqual({
      value: 'prod',
      source: { kind: 'env', variable: 'MEMBERCTL_PROFILE' },
    });
    expect(resolveSettings({ env, config }).values.baseUrl.value).toBe('https://api.example.com');
    expect(resolveSettings({ env: {} }).profile).toBeUndefined();
  });

  it('resolves the token: --token-file > MEMBERCTL_TOKEN > the profile token file, per area', () => {
    const env = { MEMBERCTL_TOKEN: 'secret' };
    expect(resolveSettings({ env, config, flags: { tokenFile: '/tmp/t' } }).tokens.member).toEqual({
      value: { from: 'file', path: '/tmp/t' },
      source: { kind: 'flag', flag: '--token-file' },
    });
    expect(resolveSettings({ env, config }).tokens.member?.value).toEqual({ from: 'env', variable: 'MEMBERCTL_TOKEN' });
    expect(resolveSettings({ env: {}, config }).tokens.member).toEqual({
      value: { from: 'file', path: '/keys/staging.token' },
      source: { kind: 'profile', profile: 'staging' },
    });
    expect(resolveSettings({ env: {}, config }).tokens.push).toBeUndefined();
    expect(resolveSettings({ env: {}, config, profileFlag: 'prod' }).tokens.push?.value).toEqual({
      from: 'file',
      path: '/keys/push.token',
    });
    // The resolved settings hold where a token is, never the token.
    expect(JSON.stringify(resolveSettings({ env, config }))).not.toContain('secret');
  });

  it('refuses an unknown profile with exit 2, naming the known ones', () => {
    const attempt = () => resolveSettings({ env: {}, config, profileFlag: 'stagin' });
    expect(attempt).toThrow(/unknown profile "stagin" \(from flag --profile\).*did you mean "staging"/);
    try {
      attempt();
    } catch (error) {
      expect((error as UsageError).category).toBe('usage');
      expect((error as UsageError).hint).toBe('known profiles: staging, prod');
    }
    expect(() => resolveSettings({ env: { MEMBERCTL_PROFILE: 'x' }, configPath: '/nope.json' })).toThrow(
      /no config file at \/nope.json/,
    );
  });

  it('rejects bad values from the environment and flags, naming where they came from', () => {
    expect(() => resolveSettings({ env: { MEMBERCTL_BATCH_SIZE: 'lots' } })).toThrow(
      'MEMBERCTL_BATCH_SIZE "lots" is not a whole number',
    );
    expect(() => resolveSettings({ env: { MEMBERCTL_CONCURRENCY: '0' } })).toThrow(/MEMBERCTL_CONCURRENCY 0/);
    expect(() => resolveSettings({ env: {}, flags: { concurrency: 1000 } })).toThrow(/--concurrency 1000/);
    // commands may hand flags over as typed text
    expect(() => resolveSettings({ env: {}, flags: { batchSize: 'ten' as unknown as number } })).toThrow(
      '--batch-size "ten" is not a whole number',
    );
    expect(resolveSettings({ env: {}, flags: { batchSize: '25' as unknown as number } }).values.batchSize.value).toBe(
      25,
    );
  });

  it("a number out of range says the range in words, with an example in the form it was given (never zod's words)", () => {
    const refusal = (attempt: () => unknown) => {
      try {
        attempt();
      } catch (error) {
        return { message: (error as UsageError).message, hint: (error as UsageError).hint };
      }
      throw new Error('not refused');
    };
    expect(refusal(() => resolveSettings({ env: {}, flags: { concurrency: 0 } }))).toEqual({
      message: '--concurrency 0: out of range',
      hint: '--concurrency takes a whole number from 1 to 64 (e.g. --concurrency 8)',
    });
    expect(refusal(() => resolveSettings({ env: { MEMBERCTL_BATCH_SIZE: '100001' } }))).toEqual({
      message: 'MEMBERCTL_BATCH_SIZE 100001: out of range',
      hint: 'MEMBERCTL_BATCH_SIZE takes a whole number from 1 to 100,000 (e.g. MEMBERCTL_BATCH_SIZE=500)',
    });
    expect(refusal(() => resolveSettings({ env: {}, flags: { timeoutMs: '5s' as unknown as number } })).hint).toBe(
      '--timeout takes a whole number of milliseconds from 1 to 3,600,000 (e.g. --timeout 30000)',
    );
    expect(refusal(() => resolveSettings({ env: { MEMBERCTL_TIMEOUT: '30s' } })).hint).toBe(
      'MEMBERCTL_TIMEOUT takes a whole number of milliseconds from 1 to 3,600,000 (e.g. MEMBERCTL_TIMEOUT=30000)',
    );
  });

  it('--max-retry-after and MEMBERCTL_MAX_RETRY_AFTER: a duration of at most 7d, refused naming the flag', () => {
    for (const bad of ['5x', '-1m', '8d']) {
      const refused = () => resolveSettings({ env: {}, flags: { maxRetryAfter: bad } });
      expect(refused).toThrow(UsageError);
      expect(refused).toThrow(/--max-retry-after/);
    }
    const fromEnv = resolveSettings({ env: { MEMBERCTL_MAX_RETRY_AFTER: '1s' } }).values.maxRetryAfter;
    expect(fromEnv).toEqual({ value: '1s', source: { kind: 'env', variable: 'MEMBERCTL_MAX_RETRY_AFTER' } });
  });

  it('describes provenance for humans', () => {
    expect(describeProvenance({ kind: 'profile', profile: 'staging' })).toBe('profile staging');
    expect(describeProvenance({ kind: 'env', variable: 'MEMBERCTL_TOKEN' })).toBe('env MEMBERCTL_TOKEN');
  });
});

describe('config file', () => {
  it('is found through MEMBERCTL_CONFIG, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configLocation({ MEMBERCTL_CONFIG: '~/m.json' }, '/home/u')).toEqual({
      path: '/home/u/m.json',
      explicit: true,
    });
    expect(configLocation({ XDG_CONFIG_HOME: '/xdg' }, '/home/u').path).toBe('/xdg/memberctl/config.json');
    expect(configLocation({ XDG_CONFIG_HOME: 'relative' }, '/home/u').path).toBe(
      '/home/u/.config/memberctl/config.json',
    );
    expect(configLocation({}, '/home/u')).toEqual({ path: '/home/u/.config/memberctl/config.json', explicit: false });
  });

  it('is optional unless named explicitly', () => {
    expect(loadConfigFile({ path: '/nonexistent/config.json', explicit: false })).toBeUndefined();
    expect(() => loadConfigFile({ path: '/nonexistent/config.json', explicit: true })).toThrow(
      /config file \/nonexistent\/config.json: cannot read it \(ENOENT\)/,
    );
  });

  it('expands ~ and resolves token files relative to the config file', () => {
    const path = tempConfig(
      JSON.stringify({ profiles: { a: { tokenFile: 'a.token', pushTokenFile: '~/push.token' } } }),
    );
    const loaded = loadConfigFile({ path, explicit: true }, '/home/u');
    expect(loaded?.data.profiles.a).toEqual({
      tokenFile: join(path, '..', 'a.token'),
      pushTokenFile: '/home/u/push.token',
    });
  });

  it('names the file and key path of an unknown key, with did-you-mean', () => {
    const message = configErrorMessage(
      JSON.stringify({ profiles: { staging: { baseUrl: 'https://x', batchsize: 5 } } }),
    );
    expect(message).toMatch(
      /^config file \/.*config\.json: profiles\.staging\.batchsize: unknown key \(did you mean "batchSize"\?\)/,
    );
    expect(message).toContain('allowed keys here: description, baseUrl, tokenFile');
    expect(configErrorMessage(JSON.stringify({ defaultProfle: 'a', profiles: {} }))).toMatch(
      /defaultProfle: unknown key \(did you mean "defaultProfile"\?\)/,
    );
  });

  it('refuses a token stored in the config, pointing at tokenFile', () => {
    const message = configErrorMessage(JSON.stringify({ profiles: { p: { token: 'eyJ...' } } }));
    expect(message).toMatch(/profiles\.p\.token: tokens are never stored in the config file \| hint: .*"tokenFile"/);
    expect(message).not.toContain('eyJ');
  });

  it('names the key of a wrongly typed value, the position of a JSON syntax error, and a dangling defaultProfile', () => {
    expect(configErrorMessage(JSON.stringify({ profiles: { p: { concurrency: 'four' } } }))).toMatch(
      /profiles\.p\.concurrency: Invalid input: expected number/,
    );
    expect(configErrorMessage('{\n  "profiles": {,\n}')).toMatch(/not valid JSON \(line 2, column \d+\)/);
    expect(configErrorMessage(JSON.stringify({ defaultProfile: 'x', profiles: { y: {} } }))).toMatch(
      /defaultProfile "x" is not among the profiles \| hint: known profiles: y/,
    );
  });

  it('is read as written: a UTF-8 byte order mark (Notepad) is no part of the JSON', () => {
    const path = tempConfig('\uFEFF{"profiles": {"ci": {"batchSize": 42}}}');
    expect(loadConfigFile({ path, explicit: true })?.data.profiles.ci).toEqual({ batchSize: 42 });
  });

  it('names curly quotes with the line and column of the first, and how to fix them', () => {
    expect(configErrorMessage('{\n  “profiles”: {}}')).toMatch(
      /: not valid JSON: it has curly quotes \(“ ”, first at line 2, column 3\) where JSON needs straight ones \("\) \| hint: .*retype them as "/,
    );
  });

  it('refuses a key given twice, naming its path and line (JSON.parse would keep the last without a word)', () => {
    const message = configErrorMessage(
      '{"profiles": {\n  "prod": {"baseUrl": "https://api.example.com",\n    "baseUrl": "https://staging.example.com"}},\n "profiles": {}}',
    );
    expect(message).toMatch(
      /^config file .*config\.json: "profiles\.prod\.baseUrl" is given twice in one object \(line 3\): only the last would be read; "profiles" is given twice in one object \(line 4\): only the last would be read \| hint: keep one of them/,
    );
  });

  it('loadSettings reads the file named by MEMBERCTL_CONFIG and applies the profile', () => {
    const path = tempConfig(JSON.stringify({ profiles: { ci: { batchSize: 42 } } }));
    const settings = loadSettings({ env: { MEMBERCTL_CONFIG: path, MEMBERCTL_PROFILE: 'ci' } });
    expect(settings.configFile).toBe(path);
    expect(settings.values.batchSize).toEqual({ value: 42, source: { kind: 'profile', profile: 'ci' } });
  });
});

describe('closest', () => {
  it('suggests near misses only', () => {
    expect(closest('concurency', ['concurrency', 'retries'])).toBe('concurrency');
    expect(closest('BASEURL', ['baseUrl'])).toBe('baseUrl');
    expect(closest('zzz', ['baseUrl'])).toBeUndefined();
  });
});

describe('documentation', () => {
  it('docs/reference/config.md documents every setting a profile may hold, with its default', async () => {
    const { readFileSync } = await import('node:fs');
    const { SETTING_KEYS, SETTING_DEFAULTS, SETTING_SPECS } = await import('../src/core/settings/index.js');
    const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'reference', 'config.md'), 'utf8');
    const doc = page.slice(page.indexOf('## Profiles')); // the settings table, not other tables' rows
    for (const key of SETTING_KEYS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| ${key} |`));
      expect(row, key).toBeDefined();
      const fallback = (SETTING_DEFAULTS as Record<string, unknown>)[key];
      if (fallback !== undefined) expect(row, key).toContain(`| ${String(fallback)} |`);
      const env = SETTING_SPECS[key].env;
      if (env) expect(row, key).toContain(env);
    }
  });
});

describe('resolveConnection with profiles', () => {
  it('keeps its old call shape, filling in base URL and token file from the profile', async () => {
    const { resolveConnection } = await import('../src/core/connection.js');
    const { chmodSync } = await import('node:fs');
    const path = tempConfig(
      JSON.stringify({
        defaultProfile: 'p',
        profiles: { p: { baseUrl: 'https://api.example.com', tokenFile: 'p.token' } },
      }),
    );
    writeFileSync(join(path, '..', 'p.token'), 'profile-token\n');
    chmodSync(join(path, '..', 'p.token'), 0o600);
    writeFileSync(join(path, '..', 'flag.token'), 'flag-token\n');
    chmodSync(join(path, '..', 'flag.token'), 0o600);
    const env = { MEMBERCTL_CONFIG: path };

    const fromProfile = await resolveConnection({ area: 'member', env });
    expect(fromProfile.baseUrl.href).toBe('https://api.example.com/');
    expect(fromProfile.token).toBe('profile-token');
    expect(fromProfile.tokenSource).toMatch(/^token file .*p\.token \(profile p\)$/);

    const fromFlags = await resolveConnection({
      area: 'member',
      env,
      baseUrl: 'http://127.0.0.1:9',
      tokenFile: join(path, '..', 'flag.token'),
    });
    expect(fromFlags.baseUrl.href).toBe('http://127.0.0.1:9/');
    expect(fromFlags.token).toBe('flag-token');

    const fromEnv = await resolveConnection({ area: 'member', env: { ...env, MEMBERCTL_TOKEN: 'env-token' } });
    expect([fromEnv.token, fromEnv.tokenSource]).toEqual(['env-token', 'MEMBERCTL_TOKEN']);
    await expect(resolveConnection({ area: 'push', env })).rejects.toThrow('no push token');
  });
});
