/**
 * `memberctl subscribe` end to end: the whole command line in-process (test/cli/run-in-process.ts) against a
 * sandbox started here on port 0 (its faults script the 400 and the 503), or with --sandbox; Ctrl-C on the built
 * CLI spawned. Every item of issue 5's "Done when" list has a test below.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { spawn } from 'node:child_process';
import { CLI, isolatedEnv, type RunResult } from './config-cli-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const APNS = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const FCM = `dXk3R2pTQ0eXa1b2:APA91b${'Hq3fK9xLmN2pQ7rStUvWxYz_-'.repeat(6)}`;
const PUSH_TOKEN = 'sandbox-push-token-e2e-7f3a9c';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ pushToken: PUSH_TOKEN, strictTokens: true });
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.reset();
  sandbox.setFaults({ failNext: [] });
});

const env = (extra: Record<string, string> = {}) =>
  isolatedEnv({ MEMBERCTL_BASE_URL: sandbox.url, MEMBERCTL_PUSH_TOKEN: PUSH_TOKEN, ...extra });
const pushRequests = () => sandbox.requests().filter((r) => r.endpoint.includes('/push/'));

function subscribe(args: string[], extraEnv?: Record<string, string>): Promise<RunResult> {
  return runInProcess(['subscribe', ...args], env(extraEnv));
}

function expectNoSecret(run: RunResult): void {
  expect(run.stdout + run.stderr).not.toContain(PUSH_TOKEN);
}

describe('memberctl subscribe: success', () => {
  it('subscribes and says which device of which customer, with the status', async () => {
    const run = await subscribe([
      'cust-42',
      '--token-handle',
      APNS,
      '--platform',
      'Apns',
      '--installation-id',
      'iphone-1',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(
      'Subscribed device iphone-1 of customer cust-42 to push notifications (Apns, iOS): HTTP 204',
    );
    expect(run.stderr).toBe('');
    expect(sandbox.subscriptions()).toMatchObject([
      { customerId: 'cust-42', tokenHandle: APNS, platform: 'Apns', installationId: 'iphone-1' },
    ]);
    expectNoSecret(run);
  });

  it('--json prints {customerId, installationId, platform, status} only', async () => {
    const run = await subscribe([
      'cust-42',
      '--token-handle',
      FCM,
      '--platform',
      'FcmV1',
      '--installation-id',
      'pixel-7',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      customerId: 'cust-42',
      installationId: 'pixel-7',
      platform: 'FcmV1',
      status: 204,
    });
  });

  it('accepts a spelling of each platform, case-insensitive, and sends the API spelling', async () => {
    // every spelling is a unit test of normalizePlatform (test/core/subscribe.test.ts); here one per platform goes
    // through the CLI to the server, the four runs at once
    const spellings: [string, string, string][] = [
      ['APNS', 'Apns', APNS],
      ['fcm_v1', 'FcmV1', FCM],
      ['hms', 'Hms', 'AHcr9nXk2LqT5vW8yZ1bD4fG7hJ0kM3pR6sU9wX2zC5eF8iL1oQ4tV7'],
      ['Fcm', 'Fcm', FCM],
    ];
    const runs = await Promise.all(
      spellings.map(([typed, , token]) =>
        subscribe([
          `c-${typed}`,
          '--token-handle',
          token,
          '--platform',
          typed,
          '--installation-id',
          `i-${typed}`,
          '--json',
        ]),
      ),
    );
    spellings.forEach(([typed, sent], i) => {
      expect(runs[i]!.code, `${typed}: ${runs[i]!.stderr}`).toBe(0);
      expect(JSON.parse(runs[i]!.stdout).platform).toBe(sent);
      expect(sandbox.subscriptions().find((s) => s.customerId === `c-${typed}`)?.platform).toBe(sent);
    });
  });

  it('Fcm is accepted with a warning that it is deprecated in favour of FcmV1', async () => {
    const run = await subscribe([
      'cust-1',
      '--token-handle',
      FCM,
      '--platform',
      'fcm',
      '--installation-id',
      'old-android',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: platform Fcm .*deprecated in favour of FcmV1/);
    expect(sandbox.subscriptions()[0]?.platform).toBe('Fcm');
  });

  it('a customerId with reserved characters reaches the server intact', async () => {
    const id = 'a/b?c#d e%f&g=h';
    const run = await subscribe([
      id,
      '--token-handle',
      APNS,
      '--platform',
      'apns',
      '--installation-id',
      'i1',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).customerId).toBe(id);
    expect(sandbox.subscriptions().map((s) => s.customerId)).toEqual([id]);
  });

  it('accepts values exactly at the upper bounds (255-character token, 50-character installation id)', async () => {
    const run = await subscribe([
      'c',
      '--token-handle',
      'a'.repeat(255),
      '--platform',
      'apns',
      '--installation-id',
      'i'.repeat(50),
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.subscriptions()[0]?.tokenHandle).toHaveLength(255);
  });
});

describe('memberctl subscribe: checked before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'empty token handle',
      ['--token-handle', '', '--platform', 'apns', '--installation-id', 'i1'],
      /--token-handle is empty \(the API needs 1 to 255/,
    ],
    [
      '256-character token handle',
      ['--token-handle', 'a'.repeat(256), '--platform', 'apns', '--installation-id', 'i1'],
      /--token-handle is 256 characters long; the API allows 1 to 255/,
    ],
    [
      'empty installation id',
      ['--token-handle', APNS, '--platform', 'apns', '--installation-id', ''],
      /--installation-id is empty \(the API needs 1 to 50/,
    ],
    [
      '51-character installation id',
      ['--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i'.repeat(51)],
      /--installation-id is 51 characters long; the API allows 1 to 50/,
    ],
    [
      'unknown platform',
      ['--token-handle', APNS, '--platform', 'windows', '--installation-id', 'i1'],
      /--platform "windows" is not a platform\nhint: platforms: Apns \(ios, .*\), FcmV1 \(android, firebase\), Hms \(huawei, .*\), Fcm \(legacy Android, deprecated\)/,
    ],
    ['empty platform', ['--token-handle', APNS, '--platform', '', '--installation-id', 'i1'], /--platform is empty/],
    [
      'mistyped platform',
      ['--token-handle', APNS, '--platform', 'iso', '--installation-id', 'i1'],
      /--platform "iso" is not a platform; did you mean Apns \(ios\)\?\nhint: platforms: Apns \(ios/,
    ],
    [
      'mistyped platform alias',
      ['--token-handle', APNS, '--platform', 'andriod', '--installation-id', 'i1'],
      /--platform "andriod" is not a platform; did you mean FcmV1 \(android\)\?/,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const run = await subscribe(['cust-1', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      // The hint speaks of the field that is wrong: a length problem gets no platform list.
      if (!name.includes('platform')) expect(run.stderr).not.toContain('platforms:');
      expect(pushRequests()).toHaveLength(0);
    });
  }

  it('a 51-character installation id: the field, its limit, the length, and a hint about that field only', async () => {
    const run = await subscribe([
      'cust-1',
      '--token-handle',
      APNS,
      '--platform',
      'ios',
      '--installation-id',
      'i'.repeat(51),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: invalid subscription, nothing sent: --installation-id is 51 characters long; the API allows 1 to 50\n' +
        "hint: the installation id is the app installation's own id (at most 50 characters), not the device token: check that only the id was copied\n",
    );
  });

  it('--help lists the platforms with the words the guide uses', async () => {
    const run = await subscribe(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /Platforms: Apns \(ios, [^)]*\), FcmV1 \(android, firebase\), Hms \(huawei, [^)]*\),\s+Fcm \(legacy Android, deprecated\)/,
    );
    expect(run.stdout).toContain('130  Ctrl-C at a prompt (nothing sent)');
  });

  it('names every problem at once, and --json gives the usage error object', async () => {
    const run = await subscribe(['', '--token-handle', '', '--platform', 'x', '--installation-id', '', '--json']);
    expect(run.code).toBe(2);
    const body = JSON.parse(run.stdout);
    expect(body.error.code).toBe('invalid-subscription');
    expect(body.error.details.problems).toHaveLength(4);
    expect(pushRequests()).toHaveLength(0);
  });

  it('without a terminal, missing values are a usage error naming them', async () => {
    const run = await subscribe(['cust-1', '--platform', 'apns']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing --token-handle, --installation-id');
    const json = await subscribe(['--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.details.missing).toEqual([
      'CUSTOMER_ID',
      '--token-handle',
      '--platform',
      '--installation-id',
    ]);
    expect(pushRequests()).toHaveLength(0);
  });

  it('no base URL and no --sandbox: exit 2 with a hint naming MEMBERCTL_BASE_URL and --sandbox', async () => {
    const run = await runInProcess(
      ['subscribe', 'c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1'],
      isolatedEnv({ MEMBERCTL_PUSH_TOKEN: PUSH_TOKEN }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no base URL');
    expect(run.stderr).toContain('MEMBERCTL_BASE_URL');
    expect(run.stderr).toContain('--sandbox');
  });

  it('no push token: exit 2 naming MEMBERCTL_PUSH_TOKEN', async () => {
    const run = await runInProcess(
      ['subscribe', 'c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1'],
      isolatedEnv({ MEMBERCTL_BASE_URL: sandbox.url }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('MEMBERCTL_PUSH_TOKEN');
  });

  it('plain http:// to a host other than loopback is refused', async () => {
    const run = await subscribe([
      'c1',
      '--token-handle',
      APNS,
      '--platform',
      'apns',
      '--installation-id',
      'i1',
      '--base-url',
      'http://push.example.com',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('refusing to send a bearer token over plain http://');
  });
});

describe('memberctl subscribe: device token heuristics', () => {
  const pasted = `<${APNS.match(/.{8}/g)!.join(' ')}>`;

  it('an APNs token pasted in the old iOS description format is sent without brackets and spaces, and says so', async () => {
    const run = await subscribe(['c1', '--token-handle', pasted, '--platform', 'apns', '--installation-id', 'i1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `note: the device token was pasted with angle brackets or spaces (the old iOS description format); sending it without them: ${APNS}`,
    );
    expect(sandbox.subscriptions()[0]?.tokenHandle).toBe(APNS);
  });

  it('--clean-token sends the cleaned token', async () => {
    const run = await subscribe([
      'c1',
      '--token-handle',
      pasted,
      '--platform',
      'apns',
      '--installation-id',
      'i1',
      '--clean-token',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`sending the cleaned device token ${APNS}`);
    expect(sandbox.subscriptions()[0]?.tokenHandle).toBe(APNS);
  });

  it('an APNs-looking token on FcmV1 is a warning, not an error', async () => {
    const run = await subscribe(['c1', '--token-handle', APNS, '--platform', 'fcmv1', '--installation-id', 'i1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('is the platform Apns?');
  });
});

describe('memberctl subscribe: server answers', () => {
  it('401: exit 5 with a hint about the push token, which is never shown', async () => {
    const run = await subscribe(['c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1'], {
      MEMBERCTL_PUSH_TOKEN: 'wrong-token-5c1d',
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^error: Unauthorized: .*\(401\)$/m);
    expect(run.stderr).toContain('MEMBERCTL_PUSH_TOKEN');
    expect(run.stdout + run.stderr).not.toContain('wrong-token-5c1d');
    expect(sandbox.subscriptions()).toHaveLength(0);
  });

  it('a problem+json 400 is rendered as "title: detail (status)", exit 3', async () => {
    sandbox.setFaults({ failNext: [{ endpoint: 'push', status: 400 }] });
    const run = await subscribe(['c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /^error: Bad Request: scripted fault \(failNext\); the subscription was not stored\. \(400\)$/m,
    );
    expect(pushRequests()).toHaveLength(1);
  });

  it('--json prints the problem as {error: {type, title, status, detail, instance}}', async () => {
    sandbox.setFaults({ failNext: [{ endpoint: 'push', status: 400 }] });
    const run = await subscribe([
      'c/1',
      '--token-handle',
      APNS,
      '--platform',
      'apns',
      '--installation-id',
      'i1',
      '--json',
    ]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        type: 'https://developer.mozilla.org/docs/Web/HTTP/Status/400',
        title: 'Bad Request',
        status: 400,
        detail: 'scripted fault (failNext); the subscription was not stored.',
        instance: '/push/v1/customers/c%2F1/subscription',
      },
    });
  });

  it('503 then success: retried, subscribed, exit 0', async () => {
    sandbox.setFaults({ failNext: [{ endpoint: 'push', status: 503, retryAfter: 0 }] });
    const run = await subscribe(['c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('retrying in 0.0 s (503), retry 1 of 3');
    expect(pushRequests().map((r) => r.status)).toEqual([503, 204]);
    expect(sandbox.subscriptions()).toHaveLength(1);
  });

  it('503 every time: not confirmed after 3 retries, exit 4, safe-to-rerun hint', async () => {
    sandbox.setFaults({
      failNext: Array.from({ length: 4 }, () => ({ endpoint: 'push' as const, status: 503, retryAfter: 0 })),
    });
    const run = await subscribe([
      'c1',
      '--token-handle',
      APNS,
      '--platform',
      'apns',
      '--installation-id',
      'i1',
      '--json',
    ]);
    expect(run.code).toBe(4);
    const body = JSON.parse(run.stdout);
    expect(body.error).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect(body.error.detail).toContain('gave up after 3 retries');
    expect(run.stderr).toContain('safe');
    expect(pushRequests()).toHaveLength(4);
  });
});

describe('memberctl subscribe: Ctrl-C', () => {
  it('during a long Retry-After wait: stops at once, not confirmed, exit 4', async () => {
    sandbox.setFaults({ failNext: [{ endpoint: 'push', status: 503, retryAfter: 120 }] });
    const child = spawn(
      process.execPath,
      [CLI, 'subscribe', 'c1', '--token-handle', APNS, '--platform', 'apns', '--installation-id', 'i1'],
      { env: env() },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (chunk.includes('retrying in 120.0 s')) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(4);
    expect(stderr).toMatch(/error: Service Unavailable: .*interrupted before the next retry \(503\)/);
    expect(pushRequests()).toHaveLength(1);
  });
});

describe('memberctl subscribe --sandbox', () => {
  it('starts a local sandbox, says so plainly, and needs no base URL or token', async () => {
    const run = await runInProcess(
      [
        'subscribe',
        'cust-42',
        '--token-handle',
        APNS,
        '--platform',
        'apns',
        '--installation-id',
        'iphone-1',
        '--sandbox',
      ],
      isolatedEnv(),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Subscribed device iphone-1 of customer cust-42');
    expect(run.stdout).toContain('local sandbox: nothing was sent to a real server');
    expect(run.stderr).toMatch(/note: sending to a local sandbox at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('--sandbox with --base-url is a usage error', async () => {
    const run = await runInProcess(
      [
        'subscribe',
        'c',
        '--token-handle',
        APNS,
        '--platform',
        'apns',
        '--installation-id',
        'i',
        '--sandbox',
        '--base-url',
        sandbox.url,
      ],
      isolatedEnv(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('exclude each other');
  });
});
