/**
 * A faithful server confirms only what it has stored: with --data, every import, erasure and subscription the
 * sandbox answered survives a kill -9 of the sandbox right after the answer. And temp files a killed sandbox left
 * beside its store are removed at the next start (only those whose writer is gone).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, importBatch, member, subscribe } from './helpers.js';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'memberctl.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function spawnSandbox(file: string) {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--json', '--data', file], {
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exit = new Promise((resolve) => child.on('close', resolve));
  const info = await new Promise<{ url: string; memberToken: string; pushToken: string }>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line))),
  );
  return { child, info, exit };
}

describe('--data: what the sandbox confirmed survives kill -9', () => {
  it('every confirmed batch, erasure and subscription is there after a restart', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'memberctl-durable-')), 'store.ndjson');
    const { child, info, exit } = await spawnSandbox(file);
    const target = info as Parameters<typeof importBatch>[0];
    for (let batch = 0; batch < 8; batch++) {
      const reply = await importBatch(
        target,
        Array.from({ length: 500 }, (_, i) => member(`d${batch}-${i}`)),
      );
      expect(reply.status).toBe(200);
    }
    expect((await call(info.url, '/_sandbox/members/d0-0', { method: 'DELETE' })).status).toBe(204);
    expect(
      (await subscribe(target, 'cust', { tokenHandle: 'h', platform: 'Apns', installationId: 'i' })).status,
    ).toBeLessThan(300);
    child.kill('SIGKILL');
    await exit;
    const restarted = await startSandbox({ dataFile: file });
    try {
      expect(restarted.memberCount()).toBe(3999);
      expect(restarted.getMember('d7-499')).toEqual(member('d7-499'));
      expect(restarted.getMember('d0-0')).toBeUndefined();
      expect(restarted.subscriptions()).toHaveLength(1);
      const again = await importBatch(restarted, [member('d0-0')]);
      expect(again.json.skipped).toEqual([{ memberId: 'd0-0', reason: 'member erased' }]);
    } finally {
      await restarted.close();
    }
  }, 60_000);
});

describe('--data: stale temp files', () => {
  it("those of a writer that is gone are removed at start; a live writer's are kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-stale-'));
    const file = join(dir, 'store.ndjson');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = join(dir, `.store.ndjson.${gone}.0badcafe.tmp`);
    const live = join(dir, `.store.ndjson.${process.pid}.1badcafe.tmp`);
    writeFileSync(stale, 'half a store');
    writeFileSync(live, 'being written');
    const sandbox = await startSandbox({ dataFile: file });
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      await sandbox.close();
    }
  });
});
