/**
 * `config show` and `config check` through the whole command line, in-process (test/cli/run-in-process.ts):
 * precedence as a user sees it, config-file errors, and check's verdicts against a live server, an expired token
 * and a closed port. Spawned: check over TLS (NODE_EXTRA_CA_CERTS is read by node as a process starts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { closedPort, configDir, craftJwt, isolatedEnv, nowSeconds, profileEnv, runCli } from './config-cli-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const GOOD = craftJwt({ sub: 'import-bot', iat: nowSeconds() - 60, exp: nowSeconds() + 30 * 86400 });
const EXPIRED = craftJwt({ sub: 'import-bot', iat: nowSeconds() - 10 * 86400, exp: nowSeconds() - 3 * 86400 });

/** The sandbox, holding GOOD as its own member token and accepting no other. */
let sandbox: SandboxHandle;
let baseUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ memberToken: GOOD, strictTokens: true });
  baseUrl = sandbox.url;
});
afterAll(async () => {
  await sandbox.close();
});

describe('config show', () => {
  it('shows each setting with its source: flag > env > profile > default', async () => {
    const env = profileEnv(
      { baseUrl: 'https://staging.example.com', batchSize: 200, concurrency: 2, retries: 9 },
      GOOD,
    );
    env.MEMBERCTL_CONCURRENCY = '8';
    env.MEMBERCTL_RETRIES = '1';
    const { code, stdout, stderr } = await runInProcess(
      // the sending settings as import takes them (docs/reference/config.md), e.g. to try one before a profile
      [
        'config',
        'show',
        '--json',
        '--base-url',
        'https://flag.example.com',
        '--retries',
        '3',
        '--max-batch-bytes',
        '2048',
      ],
      env,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const shown = JSON.parse(stdout);
    expect(shown.profile).toEqual({
      name: 'staging',
      source: expect.stringMatching(/^defaultProfile in .*config\.json$/),
    });
    expect(shown.settings.baseUrl).toEqual({ value: 'https://flag.example.com', source: 'flag --base-url' });
    expect(shown.settings.concurrency).toEqual({ value: 8, source: 'env MEMBERCTL_CONCURRENCY' });
    expect(shown.settings.batchSize).toEqual({ value: 200, source: 'profile staging' });
    expect(shown.settings.retries).toEqual({ value: 3, source: 'flag --retries' });
    expect(shown.settings.maxBatchBytes).toEqual({ value: 2048, source: 'flag --max-batch-bytes' });
    expect(shown.tokens.member).toMatch(/^set \(from token file .*staging\.token, profile staging\)$/);
    expect(shown.tokens.push).toBe('not set');
    expect(stdout).not.toContain(GOOD);
  });

  it('says "set (from MEMBERCTL_TOKEN)" and never prints the token, in text mode', async () => {
    const env = isolatedEnv({ MEMBERCTL_TOKEN: GOOD, MEMBERCTL_BASE_URL: 'https://env.example.com' });
    const { code, stdout } = await runInProcess(['config', 'show'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/member token\s+set \(from MEMBERCTL_TOKEN\)/);
    expect(stdout).toMatch(/baseUrl\s+https:\/\/env\.example\.com\s+env MEMBERCTL_BASE_URL/);
    expect(stdout).toMatch(/batchSize\s+500\s+default/);
    expect(stdout).not.toContain(GOOD);
  });

  it('never prints a password (or a token) written into a base URL: show, show --json, profiles; import refuses it', async () => {
    const secret = 'hunter2-in-the-url';
    const { xdg } = configDir({ profiles: { p: { baseUrl: `https://bot:${secret}@profile.example.com` } } });
    const env = isolatedEnv({ XDG_CONFIG_HOME: xdg, MEMBERCTL_BASE_URL: `https://bot:${secret}@env.example.com` });
    const runs = [
      await runInProcess(['config', 'show'], env),
      await runInProcess(['config', 'show', '--json'], env),
      await runInProcess(['config', 'show', '--base-url', `http://${secret}@127.0.0.1:1`], env),
      await runInProcess(['config', 'profiles'], env),
      await runInProcess(['config', 'profiles', '--json'], env),
      await runInProcess(['import', 'x.csv', '--base-url', `http://u:${secret}@[broken`], env),
    ];
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(secret);
    expect(runs[0]!.stdout).toMatch(/baseUrl\s+https:\/\/\*\*\*@env\.example\.com\s+env MEMBERCTL_BASE_URL/);
    expect(runs[3]!.stdout).toContain('https://***@profile.example.com');
    expect(runs[5]!.stderr).toContain('base URL "http://***@[broken" is not a valid URL');
  });

  it('honours the global --no-color (and NO_COLOR) even when color is forced', async () => {
    const colored = await runInProcess(['config', 'show'], isolatedEnv({ FORCE_COLOR: '1' }));
    expect(colored.stdout).toContain('\u001b[');
    for (const [args, extra] of [
      [['config', 'show', '--no-color'], {}],
      [['--no-color', 'config', 'show'], {}],
      [['config', 'show'], { NO_COLOR: '1' }],
    ] as const) {
      const plain = await runInProcess([...args], isolatedEnv({ FORCE_COLOR: '1', ...extra }));
      expect(plain.code).toBe(0);
      expect(plain.stdout).not.toContain('\u001b[');
    }
  });

  it('selects a profile with --profile (after the command too) or MEMBERCTL_PROFILE', async () => {
    const { xdg } = configDir({ profiles: { a: { batchSize: 11 }, b: { batchSize: 22 } } });
    const env = isolatedEnv({ XDG_CONFIG_HOME: xdg, MEMBERCTL_PROFILE: 'a' });
    expect(JSON.parse((await runInProcess(['config', 'show', '--json'], env)).stdout).settings.batchSize.value).toBe(
      11,
    );
    const flagged = JSON.parse((await runInProcess(['config', 'show', '--json', '--profile', 'b'], env)).stdout);
    expect(flagged.profile).toEqual({ name: 'b', source: 'flag --profile' });
    expect(flagged.settings.batchSize.value).toBe(22);
  });

  it('lists the profiles, the default one marked', async () => {
    const { xdg } = configDir({
      defaultProfile: 'prod',
      profiles: { staging: { baseUrl: 'https://staging.example.com' }, prod: { description: 'the real thing' } },
    });
    const env = isolatedEnv({ XDG_CONFIG_HOME: xdg });
    const listed = await runInProcess(['config', 'profiles'], env);
    expect(listed.stdout.split('\n').filter(Boolean)).toEqual([
      '  staging   https://staging.example.com',
      '* prod      the real thing',
    ]);
    expect((await runInProcess(['config', 'profiles', '--names'], env)).stdout).toBe('staging\nprod\n');
    expect((await runInProcess(['config', 'profiles'], isolatedEnv())).stdout).toMatch(
      /^no profiles: no config file at .*config\.json/,
    );
  });

  it('refuses an unknown profile with exit 2 and lists the known ones', async () => {
    const { xdg } = configDir({ profiles: { staging: {}, prod: {} } });
    const { code, stderr } = await runInProcess(
      ['--profile', 'prd', 'config', 'show'],
      isolatedEnv({ XDG_CONFIG_HOME: xdg }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain('error: unknown profile "prd" (from flag --profile)');
    expect(stderr).toContain('did you mean "prod"?');
    expect(stderr).toContain('hint: known profiles: staging, prod');
  });

  it('names the config file and key path of an invalid config, with did-you-mean, exit 2', async () => {
    const { xdg, configPath } = configDir({ profiles: { staging: { baseUrl: 'https://x', concurency: 4 } } });
    const { code, stderr, stdout } = await runInProcess(['config', 'show'], isolatedEnv({ XDG_CONFIG_HOME: xdg }));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `error: config file ${configPath}: profiles.staging.concurency: unknown key (did you mean "concurrency"?)`,
    );
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses a token stored in the config file without echoing it', async () => {
    const { xdg } = configDir({ profiles: { staging: { token: GOOD } } });
    const { code, stderr } = await runInProcess(['config', 'check'], isolatedEnv({ XDG_CONFIG_HOME: xdg }));
    expect(code).toBe(2);
    expect(stderr).toContain('profiles.staging.token: tokens are never stored in the config file');
    expect(stderr).toContain('"tokenFile"');
    expect(stderr).not.toContain(GOOD);
  });

  it('reads the file named by MEMBERCTL_CONFIG, and says so when it is missing', async () => {
    const { configPath } = configDir({ profiles: { ci: { batchSize: 7 } }, defaultProfile: 'ci' });
    const shown = await runInProcess(['config', 'show', '--json'], isolatedEnv({ MEMBERCTL_CONFIG: configPath }));
    expect(JSON.parse(shown.stdout).settings.batchSize).toEqual({ value: 7, source: 'profile ci' });
    const missing = await runInProcess(
      ['config', 'show'],
      isolatedEnv({ MEMBERCTL_CONFIG: join(configPath, '..', 'nope.json') }),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/config file .*nope\.json: cannot read it \(ENOENT\)/);
  });
});

// Each verdict's checks and category are tested in-process (test/core/config-check.test.ts); here, how the command
// line prints a few of them: the marks, the verdict line with its exit code, --json with exitCode.
describe('config check', () => {
  it('is ready against a reachable server with a valid token (exit 0), probing with an empty batch only', async () => {
    sandbox.reset();
    const { code, stdout } = await runInProcess(['config', 'check'], profileEnv({ baseUrl }, GOOD));
    expect(stdout).toContain('TCP connection to 127.0.0.1');
    expect(stdout).toMatch(/member token for subject import-bot valid until/);
    expect(stdout).toContain(
      'member token accepted by the import endpoint (HTTP 400 to an empty batch; nothing written)',
    );
    expect(stdout).toMatch(/verdict: ready, with 1 warning \(exit 0\)/); // the push token is not set
    expect(code).toBe(0);
    expect(sandbox.requests()).toEqual([
      expect.objectContaining({ endpoint: 'POST /member/v1/members/import', status: 400, items: 0 }),
    ]);
    expect(sandbox.memberCount()).toBe(0);
    expect(stdout).not.toContain(GOOD);
  });

  it('fails with exit 5 on an expired token, saying when it expired, and sends nothing', async () => {
    sandbox.reset();
    const { code, stdout } = await runInProcess(['config', 'check', '--json'], profileEnv({ baseUrl }, EXPIRED));
    expect(code).toBe(5);
    const check = JSON.parse(stdout);
    expect(check.verdict).toBe('not-ready');
    expect(check.exitCode).toBe(5);
    expect(check.summary).toMatch(/^not ready: member token for subject import-bot expired 3 days ago/);
    expect(sandbox.requests()).toEqual([]);
    expect(stdout).not.toContain(EXPIRED);
  });

  it('fails with exit 4 when the port is closed', async () => {
    const port = await closedPort();
    const { code, stdout } = await runInProcess(
      ['config', 'check'],
      profileEnv({ baseUrl: `http://127.0.0.1:${port}` }, GOOD),
    );
    expect(code).toBe(4);
    expect(stdout).toContain(`FAIL  cannot connect to 127.0.0.1 port ${port} (ECONNREFUSED)`);
    expect(stdout).toMatch(/verdict: not ready: cannot connect .* \(exit 4\)/);
  });
});

describe('config check over TLS', () => {
  const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

  it.skipIf(!hasOpenssl)(
    'fails with exit 4 on an untrusted certificate, and passes once the CA is trusted',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'memberctl-tls-'));
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
        req.resume();
        req.on('end', () =>
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end('{"name":"ValidationError","message":"empty"}'),
        );
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const untrusted = await runCli(['config', 'check', '--base-url', url], isolatedEnv({ MEMBERCTL_TOKEN: GOOD }));
        expect(untrusted.stdout).toContain('ok    TCP connection to 127.0.0.1');
        expect(untrusted.stdout).toMatch(
          /FAIL  TLS handshake with 127\.0\.0\.1 failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/,
        );
        expect(untrusted.code).toBe(4);

        const trusted = await runCli(
          ['config', 'check', '--base-url', url],
          isolatedEnv({ MEMBERCTL_TOKEN: GOOD, NODE_EXTRA_CA_CERTS: cert }),
        );
        expect(trusted.stdout).toMatch(/ok    TLS TLSv1\.[23] handshake ok; certificate for 127\.0\.0\.1 valid until/);
        expect(trusted.stdout).toContain('member token accepted by the import endpoint (HTTP 400');
        expect(trusted.code).toBe(0);
      } finally {
        server.close();
        server.closeAllConnections();
      }
    },
  );
});
