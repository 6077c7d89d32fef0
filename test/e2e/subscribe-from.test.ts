/**
 * `memberctl subscribe --from FILE|-`: the device values from a JSON object as apps and logs print it, through
 * the whole command line in-process against a sandbox on port 0 (on a terminal: spawned under script(1)). The same checks as for flags run before anything is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunResult } from './config-cli-helper.js';
import { APNS, FCM, usePushSandbox } from './push-sandbox-helper.js';
import { hasScript, runOnTerminal } from './terminal-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const PUSH_TOKEN = 'sandbox-push-token-from-2b7d';
const SECRET = 'eyJhbGciOiJIUzI1NiJ9.session-secret-4f1c';
const { sandbox, env, pushRequests } = usePushSandbox(PUSH_TOKEN);
const fromStdin = (blob: string, extra: string[] = []): Promise<RunResult> =>
  runInProcess(['subscribe', 'cust-9', '--from', '-', ...extra], env(), blob);

function blobFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'memberctl-blob-')), 'device.json');
  writeFileSync(file, text);
  return file;
}

/** Exit 2, nothing sent, no stack, and nothing of the blob's values in the output. */
function expectRefused(run: RunResult, ...secrets: string[]): void {
  expect(run.code).toBe(2);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  for (const secret of [PUSH_TOKEN, ...secrets]) expect(run.stdout + run.stderr).not.toContain(secret);
  expect(pushRequests()).toHaveLength(0);
}

describe('subscribe --from: reading the blob', () => {
  it('from stdin, with the API names', async () => {
    const run = await fromStdin(JSON.stringify({ tokenHandle: APNS, platform: 'Apns', installationId: 'iphone-1' }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Subscribed device iphone-1 of customer cust-9 to push notifications (Apns, iOS)');
    expect(run.stderr).toContain(
      'note: --from stdin: device token from "tokenHandle", platform from "platform", installation id from "installationId"',
    );
    expect(sandbox().subscriptions()).toMatchObject([
      { customerId: 'cust-9', tokenHandle: APNS, platform: 'Apns', installationId: 'iphone-1' },
    ]);
  });

  it('from a file, with the spellings an Android app prints', async () => {
    const file = blobFile(JSON.stringify({ registration_id: FCM, os: 'Android', installation_id: 'pixel-7' }, null, 2));
    const run = await runInProcess(['subscribe', 'cust-9', '--from', file, '--json'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      customerId: 'cust-9',
      installationId: 'pixel-7',
      platform: 'FcmV1',
      status: 204,
    });
    expect(sandbox().subscriptions()[0]?.tokenHandle).toBe(FCM);
  });

  it('a blob with extra fields: they are left alone and none of their values is shown', async () => {
    const blob = {
      userId: 'u-77',
      appVersion: '4.1.0',
      accessToken: SECRET,
      device: { model: 'iPhone15,2' },
      deviceToken: APNS,
      os: 'iOS',
      installationId: 'iphone-2',
    };
    const run = await fromStdin(JSON.stringify(blob));
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox().subscriptions()).toMatchObject([
      { tokenHandle: APNS, platform: 'Apns', installationId: 'iphone-2' },
    ]);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout + run.stderr).not.toContain(PUSH_TOKEN);
  });

  it('a log line around the object, and the object one level down', async () => {
    const line = `2026-11-25 12:00:01 INFO push registered ${JSON.stringify({ event: 'register', device: { pushToken: APNS, platform: 'ios' }, installId: 'ipad-1' })}`;
    const run = await fromStdin(line);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'note: --from stdin: read the JSON object inside the text (41 characters around it left out)',
    );
    expect(run.stderr).toContain(
      'device token from "device.pushToken", platform from "device.platform", installation id from "installId"',
    );
    expect(sandbox().subscriptions()).toMatchObject([{ installationId: 'ipad-1', platform: 'Apns' }]);
  });

  it('flags win over the blob, and a flag that replaced a different value is mentioned', async () => {
    const run = await fromStdin(JSON.stringify({ deviceToken: APNS, os: 'ios', installationId: 'from-blob' }), [
      '--installation-id',
      'from-flag',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('note: --installation-id wins over "installationId" in the --from blob');
    expect(sandbox().subscriptions()[0]?.installationId).toBe('from-flag');
  });
});

describe('subscribe --from: refused before anything is sent (exit 2)', () => {
  it('a blob that is not JSON: said plainly, its text never echoed', async () => {
    const run = await fromStdin(`deviceToken = ${SECRET}`);
    expectRefused(run, SECRET);
    expect(run.stderr).toContain(
      'error: --from stdin: is not JSON; expected an object such as {"tokenHandle": "…", "platform": "ios", "installationId": "…"} (nothing sent)',
    );
    expect(run.stderr).toContain('hint: copy the whole object, from { to }');
  });

  it('a file that is not JSON, an empty one, a JSON array, a missing file', async () => {
    const notJson = await runInProcess(['subscribe', 'c', '--from', blobFile(`token: ${SECRET}\n`)], env());
    expectRefused(notJson, SECRET);
    expect(notJson.stderr).toMatch(/--from .*device\.json: is not JSON/);
    expect((await runInProcess(['subscribe', 'c', '--from', blobFile('')], env())).stderr).toMatch(
      /--from .*device\.json: is empty/,
    );
    expect((await fromStdin('[{"token": "t"}]')).stderr).toContain('--from stdin: is a JSON array, not an object');
    const missing = await runInProcess(['subscribe', 'c', '--from', '/no/such/device.json'], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--from /no/such/device.json: not found');
    const directory = await runInProcess(['subscribe', 'c', '--from', tmpdir()], env());
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain('is a directory, not a file');
    expect(directory.stderr).not.toContain('.csv');
  });

  it('a blob that lacks a field names what is missing, the keys looked for, and the keys it has', async () => {
    const run = await fromStdin(JSON.stringify({ deviceToken: APNS, userId: 'u-1' }));
    expectRefused(run, APNS);
    expect(run.stderr).toContain(
      'error: missing --platform, --installation-id; the --from stdin blob has no platform (none of platform, os, platformName, osName, devicePlatform, pushPlatform or deviceType), no installation id (none of installationId, installId, appInstallationId or deviceId); it has "deviceToken", "userId" (no terminal to ask on; nothing sent)',
    );
    const nullId = await fromStdin(JSON.stringify({ deviceToken: APNS, os: 'ios', installation_id: null }));
    expect(nullId.code).toBe(2);
    expect(nullId.stderr).toContain(
      'no installation id (none of installationId, installId, appInstallationId or deviceId; "installation_id" is null or empty)',
    );
    const noCustomer = await runInProcess(
      ['subscribe', '--from', '-'],
      env(),
      JSON.stringify({ deviceToken: APNS, os: 'ios', installationId: 'i-1' }),
    );
    expect(noCustomer.code).toBe(2);
    expect(noCustomer.stderr).toContain(
      'hint: pass CUSTOMER_ID as the argument after subscribe (it is never read from the blob)',
    );
    const json = await fromStdin(JSON.stringify({ deviceToken: APNS, os: 'ios' }), ['--json']);
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'missing-values',
      details: { missing: ['--installation-id'], file: 'stdin' },
    });
  });

  it('two different device tokens are an error, not a guess; --token-handle settles it', async () => {
    const blob = JSON.stringify({ apnsToken: APNS, fcmToken: FCM, os: 'ios', installationId: 'i1' });
    const run = await fromStdin(blob);
    expectRefused(run, APNS, FCM);
    expect(run.stderr).toContain(
      '--from stdin: holds different device tokens in "apnsToken" and "fcmToken"; memberctl does not guess which one is meant',
    );
    expect(run.stderr).toContain('hint: pass the one to send with --token-handle');
    const settled = await fromStdin(blob, ['--token-handle', APNS]);
    expect(settled.code, settled.stderr).toBe(0);
  });

  it('the same checks as for flags, each naming the blob key: lengths and platform', async () => {
    const run = await fromStdin(JSON.stringify({ token: 'x'.repeat(256), os: 'iso', installation_id: 'i'.repeat(51) }));
    expectRefused(run, 'x'.repeat(256));
    expect(run.stderr).toContain(
      'device token ("token" in the --from blob) is 256 characters long; the API allows 1 to 255',
    );
    expect(run.stderr).toContain(
      'platform ("os" in the --from blob) "iso" is not a platform; did you mean Apns (ios)?',
    );
    expect(run.stderr).toContain(
      'installation id ("installation_id" in the --from blob) is 51 characters long; the API allows 1 to 50',
    );
  });

  it('token shape: the same warnings as for flags (an FCM token on iOS)', async () => {
    const run = await fromStdin(JSON.stringify({ deviceToken: FCM, os: 'iOS', installationId: 'i1' }));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: the device token looks like an FCM token');
  });

  it('more than 1 MiB is refused without reading on', async () => {
    const run = await fromStdin(`{"pad": "${'x'.repeat(1024 * 1024)}"}`);
    expectRefused(run);
    expect(run.stderr).toContain('--from stdin: is larger than 1 MiB');
  });
});

describe.skipIf(!hasScript)('subscribe --from on a terminal', () => {
  it('pbpaste | memberctl subscribe --from -: what the blob lacks is asked for on the terminal', async () => {
    const blob = JSON.stringify({ deviceToken: APNS, os: 'iOS' });
    const run = await runOnTerminal(
      ['subscribe', 'cust-9', '--from', '-'],
      env(),
      [{ when: 'installation id: ', send: 'iphone-3\n' }],
      `printf '%s' '${blob}'`,
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('Subscribed device iphone-3 of customer cust-9');
    expect(sandbox().subscriptions()).toMatchObject([
      { tokenHandle: APNS, platform: 'Apns', installationId: 'iphone-3' },
    ]);
  });

  it('Ctrl-C while pasting into --from -: exit 130, nothing sent', async () => {
    const run = await runOnTerminal(['subscribe', 'cust-9', '--from', '-'], env(), [
      { when: 'Ctrl-C cancels', send: '{"deviceToken": "ab' },
      { when: '"ab', send: '\u0003' },
    ]);
    expect(run.code).toBe(130);
    expect(run.screen).toMatch(/\ninterrupted while reading --from -: nothing was sent\n$/);
    expect(pushRequests()).toHaveLength(0);
  });
});
