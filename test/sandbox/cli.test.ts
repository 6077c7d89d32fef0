/** End to end: the built CLI (`npx tsc -p .` first) run as a process, stopped by signals. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, importBatch, member } from './helpers.js';
import { craftJwt, nowSeconds } from '../e2e/config-cli-helper.js';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'memberctl.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  info: { url: string; memberToken: string; pushToken: string; adminUrl: string; members: number };
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function spawnSandbox(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--json', ...args], {
    env: { ...process.env, FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, info: JSON.parse(line), exit }));
    void exit.then(({ code }) => reject(new Error(`sandbox exited ${code} before listening: ${stderr}`)));
  });
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('memberctl sandbox', () => {
  it('--port 0 --json prints one line with url and tokens, serves the API, stops cleanly on SIGTERM', async () => {
    const { child, info, exit } = await spawnSandbox([]);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.memberToken.split('.')).toHaveLength(3);
    const sandbox = { url: info.url, memberToken: info.memberToken } as Parameters<typeof importBatch>[0];
    expect((await importBatch(sandbox, [member('a')])).json).toEqual({
      importedCount: 1,
      updatedCount: 0,
      skipped: [],
    });
    child.kill('SIGTERM');
    const { code, stderr } = await exit;
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('prints the tokens it was given even when the environment holds the same (they are no secret here)', async () => {
    const token = craftJwt({ sub: 'sandbox', exp: nowSeconds() + 3600 });
    const { child, info, exit } = await spawnSandbox(['--member-token', token, '--push-token', 'sbx_push_given_42'], {
      MEMBERCTL_TOKEN: token,
      MEMBERCTL_PUSH_TOKEN: 'sbx_push_given_42',
    });
    expect(info.memberToken).toBe(token);
    expect(info.pushToken).toBe('sbx_push_given_42');
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
  });

  it('SIGINT writes --data; the next sandbox finds the members', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'memberctl-sandbox-cli-')), 'store.ndjson');
    const first = await spawnSandbox(['--data', file]);
    const target = { url: first.info.url, memberToken: first.info.memberToken } as Parameters<typeof importBatch>[0];
    await importBatch(target, [member('a'), member('b')]);
    first.child.kill('SIGINT');
    expect((await first.exit).code).toBe(0);
    const second = await spawnSandbox(['--data', file]);
    expect(second.info.members).toBe(2);
    expect((await call(second.info.url, '/_sandbox/members/b')).json).toEqual(member('b'));
    second.child.kill('SIGTERM');
    await second.exit;
  });

  it('kill -9 in the middle of writing leaves a store that loads', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'memberctl-sandbox-kill-')), 'store.ndjson');
    const { child, info, exit } = await spawnSandbox(['--data', file, '--max-items', '5000']);
    const target = { url: info.url, memberToken: info.memberToken } as Parameters<typeof importBatch>[0];
    for (let batch = 0; batch < 10; batch++) {
      await importBatch(
        target,
        Array.from({ length: 5000 }, (_, i) => member(`k${batch}-${i}`, { lastName: 'y'.repeat(50) })),
      );
      if (batch === 4) await call(info.url, '/_sandbox/flush', { method: 'POST' });
    }
    // a write of the larger store is due or running now
    void call(info.url, '/_sandbox/flush', { method: 'POST' }).catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    child.kill('SIGKILL');
    await exit;
    const restarted = await startSandbox({ dataFile: file });
    try {
      expect([25_000, 50_000]).toContain(restarted.memberCount());
      expect(readFileSync(file, 'utf8').endsWith('}\n')).toBe(true);
    } finally {
      await restarted.close();
    }
  });

  it('refuses a non-loopback --host without --allow-remote, and bad fault values, with exit 2', async () => {
    const remote = await run(['sandbox', '--host', '0.0.0.0', '--port', '0']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/refusing to listen on 0\.0\.0\.0/);
    expect(remote.stderr).toMatch(/--allow-remote/);
    const rate = await run(['sandbox', '--fail-rate', '1.5']);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toMatch(/--fail-rate.*0 to 1/);
    const token = await run(['sandbox', '--port', '0', '--member-token', 'not-a-jwt']);
    expect(token.code).toBe(2);
    expect(token.stderr).toMatch(/member token given is not usable/);
  });
});
