/**
 * checkConfiguration, in-process with settings loaded as `config check` loads them (env, config file, flags): each
 * verdict, its result category (so its exit code through the one table) and its words, against the real sandbox,
 * a closed port and a name that does not resolve. How a process prints them (the marks, the verdict line, --json
 * with exitCode) stays in test/e2e/config.test.ts, with TLS (NODE_EXTRA_CA_CERTS is read when a process starts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { checkConfiguration } from '../../src/core/config/check.js';
import { loadSettings } from '../../src/core/settings/index.js';
import type { SettingValues } from '../../src/core/settings/spec.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { closedPort, craftJwt, isolatedEnv, nowSeconds, profileEnv } from '../e2e/config-cli-helper.js';

const GOOD = craftJwt({ sub: 'import-bot', iat: nowSeconds() - 60, exp: nowSeconds() + 30 * 86400 });
const EXPIRED = craftJwt({ sub: 'import-bot', iat: nowSeconds() - 10 * 86400, exp: nowSeconds() - 3 * 86400 });
const EXPIRING = craftJwt({ sub: 'import-bot', exp: nowSeconds() + 3600 });
const REVOKED = craftJwt({ sub: 'revoked', exp: nowSeconds() + 86400 * 10 });

/** The sandbox, holding GOOD as its own member token and accepting no other (so REVOKED gets a 401). */
let sandbox: SandboxHandle;
let baseUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0, memberToken: GOOD, strictTokens: true });
  baseUrl = sandbox.url;
});
afterAll(async () => {
  await sandbox.close();
});

/** `memberctl config check [flags]` in that environment: the result, its exit code and every line's words. */
async function check(
  env: NodeJS.ProcessEnv,
  options: { flags?: Partial<SettingValues>; probe?: boolean; timeoutMs?: number } = {},
) {
  const settings = loadSettings({ flags: options.flags, env, home: env.HOME });
  const result = await checkConfiguration({
    settings,
    env,
    timeoutMs: options.timeoutMs ?? 5000,
    probe: options.probe ?? true,
  });
  const text = result.checks.map((c) => `${c.status} ${c.message}`).join('\n');
  return { result, exitCode: exitCodeFor(result.category), text };
}

describe('checkConfiguration (in-process)', () => {
  it('is ready against a reachable server with a valid token (exit 0), probing with an empty batch only', async () => {
    sandbox.reset();
    const { result, exitCode, text } = await check(profileEnv({ baseUrl }, GOOD));
    expect(text).toContain('TCP connection to 127.0.0.1');
    expect(text).toMatch(/member token for subject import-bot valid until/);
    expect(text).toContain(
      'member token accepted by the import endpoint (HTTP 400 to an empty batch; nothing written)',
    );
    expect(result.summary).toMatch(/^ready, with 1 warning/); // the push token is not set
    expect(exitCode).toBe(0);
    expect(sandbox.requests()).toEqual([
      expect.objectContaining({ endpoint: 'POST /member/v1/members/import', status: 400, items: 0 }),
    ]);
    expect(sandbox.memberCount()).toBe(0);
    expect(JSON.stringify(result)).not.toContain(GOOD);
  });

  it('fails with exit 5 on an expired token, saying when it expired, and sends nothing', async () => {
    sandbox.reset();
    const { result, exitCode } = await check(profileEnv({ baseUrl }, EXPIRED));
    expect(exitCode).toBe(5);
    expect(result.verdict).toBe('not-ready');
    expect(result.summary).toMatch(/^not ready: member token for subject import-bot expired 3 days ago/);
    expect(sandbox.requests()).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(EXPIRED);
  });

  it('warns when the token expires within a day, and when its file is readable by others', async () => {
    const { result, exitCode } = await check(profileEnv({ baseUrl }, EXPIRING, 0o644), { probe: false });
    expect(exitCode).toBe(0);
    const warnings = result.checks.filter((c) => c.status === 'warn').map((c) => c.message);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^member token for subject import-bot expires in \d+ minutes/),
        expect.stringMatching(/staging\.token is readable by group or others \(mode 644\); run: chmod 600 /),
      ]),
    );
  });

  it('fails with exit 5 when the server refuses the token', async () => {
    const { exitCode, text, result } = await check(
      isolatedEnv({ MEMBERCTL_BASE_URL: baseUrl, MEMBERCTL_TOKEN: REVOKED }),
    );
    expect(exitCode).toBe(5);
    expect(text).toContain('fail member token refused by the server (HTTP 401)');
    expect(JSON.stringify(result)).not.toContain(REVOKED);
  });

  it('fails with exit 4 when the port is closed', async () => {
    const port = await closedPort();
    const { exitCode, text, result } = await check(profileEnv({ baseUrl: `http://127.0.0.1:${port}` }, GOOD));
    expect(exitCode).toBe(4);
    expect(text).toContain(`fail cannot connect to 127.0.0.1 port ${port} (ECONNREFUSED)`);
    expect(result.summary).toMatch(/^not ready: cannot connect /);
  });

  it('fails with exit 4 when the host name does not resolve', async () => {
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: 'https://no-such-host.invalid', MEMBERCTL_TOKEN: GOOD });
    const { exitCode, text } = await check(env, { timeoutMs: 3000 });
    expect(exitCode).toBe(4);
    expect(text).toContain('fail cannot resolve no-such-host.invalid');
  });

  it('fails with exit 2 when there is no base URL, or plain http to another host', async () => {
    const none = await check(isolatedEnv({ MEMBERCTL_TOKEN: GOOD }));
    expect(none.exitCode).toBe(2);
    expect(none.text).toContain('fail no base URL');
    const insecure = await check(isolatedEnv({ MEMBERCTL_TOKEN: GOOD }), {
      flags: { baseUrl: 'http://api.example.com' },
    });
    expect(insecure.exitCode).toBe(2);
    expect(insecure.text).toContain('refusing to send a bearer token over plain http:// to api.example.com');
  });

  it('fails with exit 2 when the base URL has no import endpoint (wrong path prefix)', async () => {
    const { exitCode, text } = await check(isolatedEnv({ MEMBERCTL_TOKEN: GOOD }), {
      flags: { baseUrl: `${baseUrl}/wrong/` },
    });
    expect(exitCode).toBe(2);
    expect(text).toContain('no import endpoint under');
  });

  it('fails with exit 5 when no token is set at all', async () => {
    const { exitCode, text } = await check(isolatedEnv({ MEMBERCTL_BASE_URL: baseUrl }), { probe: false });
    expect(exitCode).toBe(5);
    expect(text).toContain('fail no token at all');
  });
});
