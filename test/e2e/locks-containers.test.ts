/**
 * Locks where the docs say memberctl runs (issue 26 item 4): a run killed with kill -9, then resumed on another
 * host over the same folder (unshare -u), or in a new container where it gets the dead run's pid (unshare --pid).
 * The resumed run takes the dead run's journal and state locks over once their lease lapses (short here, through
 * MEMBERCTL_LOCK_LEASE_SECONDS), and the server ends with every member exactly as the file has it.
 */
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv, membersCsv, runCli, spawnCli, tempDir, until } from './import-helper.js';
import { NO_NAMESPACES, spawnCliIn, type Namespaces } from './namespace-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

const ROWS = 300;

/** Runs an import in `first`, kills it with kill -9 mid-run, resumes it in `second`; returns the resumed run. */
async function killAndResume(first: Namespaces, second: Namespaces) {
  box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true, faults: { latencyMs: 100 } });
  const env = isolatedEnv({
    MEMBERCTL_BASE_URL: box.url,
    MEMBERCTL_TOKEN: box.memberToken,
    MEMBERCTL_LOCK_LEASE_SECONDS: '2',
  });
  const dir = tempDir(); // the shared volume: input, journal and state
  const file = membersCsv(dir, ROWS);
  const args = ['import', file, '--batch-size', '10', '--concurrency', '1', '--state', join(dir, 'members.state')];
  const killed = spawnCliIn(first, args, env);
  await until(() => box!.stats().importedCount > 0, 'the first run to be under way', 120_000);
  killed.child.kill('SIGKILL');
  expect((await killed.result).code).toBe(137);
  const resumed = await spawnCliIn(second, [...args, '--resume', '--json'], env).result;
  expect(resumed.code, resumed.stderr).toBe(0);
  // every member once, with the file's values (a batch in flight at the kill is sent again: an update)
  const members = box.members().map(({ memberId, email, firstName }) => ({ memberId, email, firstName }));
  expect(members.sort((a, b) => a.memberId.localeCompare(b.memberId))).toEqual(
    Array.from({ length: ROWS }, (_, i) => ({
      memberId: `m${i + 1}`,
      email: `m${i + 1}@example.com`,
      firstName: `Name${i + 1}`,
    })).sort((a, b) => a.memberId.localeCompare(b.memberId)),
  );
  return resumed;
}

describe('locks through a killed run in containers', { timeout: 300_000 }, () => {
  it.skipIf(NO_NAMESPACES)('a run killed on one host is resumed on another over the same folder', async () => {
    const resumed = await killAndResume({ host: 'pod-a' }, { host: 'pod-b' });
    expect(resumed.stderr).toMatch(/locked by pid \d+ on pod-a; waiting up to 2 s for it to renew its lease/);
    expect(resumed.stderr).toMatch(/took over the lock of pid \d+ on pod-a, which is gone/);
  });

  it.skipIf(NO_NAMESPACES)(
    'a run killed in one container is resumed in the next, which has the dead run’s pid: never read as itself',
    async () => {
      const resumed = await killAndResume({ host: 'pod', pid: true }, { host: 'pod', pid: true });
      expect(resumed.stderr).not.toContain('kill 1');
      expect(resumed.stderr).toContain('took over the lock of pid 1 in another container (or boot) of pod');
    },
  );

  it('a run whose lock another takes over (removed by hand here) stops: exit 4, named, journal kept, --resume exact', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true, faults: { latencyMs: 100 } });
    const env = isolatedEnv({
      MEMBERCTL_BASE_URL: box.url,
      MEMBERCTL_TOKEN: box.memberToken,
      MEMBERCTL_LOCK_LEASE_SECONDS: '1',
    });
    const dir = tempDir();
    const file = membersCsv(dir, ROWS);
    const args = ['import', file, '--batch-size', '10', '--concurrency', '1'];
    const running = spawnCli(args, env);
    await until(() => box!.stats().importedCount > 0, 'the run to be under way', 120_000);
    unlinkSync(`${file}.memberctl-journal.lock`);
    const stopped = await running.result;
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(stopped.stderr).toContain(
      `writing the journal file ${file}.memberctl-journal failed: LOCK_LOST, another memberctl took over its lock`,
    );
    expect(existsSync(`${file}.memberctl-journal`)).toBe(true);
    expect(box.stats().importedCount).toBeLessThan(ROWS);
    const resumed = await runCli([...args, '--resume'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(new Set(box.members().map((m) => m.memberId)).size).toBe(ROWS);
  });

  it('Ctrl-C ends the wait for another host’s lease at once: exit 2, saying so', async () => {
    const dir = tempDir();
    const file = membersCsv(dir, 3);
    const lock = { pid: 7, host: 'pod-a', at: 'then', id: 'silent', lease: 3600 };
    writeFileSync(`${file}.memberctl-journal.lock`, JSON.stringify(lock));
    const waiting = spawnCli(['import', file, '--sandbox'], isolatedEnv());
    let stderr = '';
    waiting.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(() => stderr.includes('waiting up to 3600 s for it to renew its lease'), 'the run to wait', 60_000);
    waiting.child.kill('SIGINT');
    const stopped = await waiting.result;
    expect(stopped.code, stopped.stderr).toBe(2);
    expect(stopped.stderr).toContain('Stopped while waiting for its lease to lapse.');
  });

  it('state reset takes over a state lock another host abandoned, saying it waited', async () => {
    const env = isolatedEnv({ MEMBERCTL_LOCK_LEASE_SECONDS: '1' });
    const state = join(tempDir(), 'members.state');
    expect((await runCli(['state', 'init', '--state', state], env)).code).toBe(0);
    writeFileSync(`${state}.lock`, JSON.stringify({ pid: 7, host: 'pod-a', at: 'then', id: 'gone', lease: 1 }));
    const reset = await runCli(['state', 'reset', '--state', state], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stderr).toContain(`note: state ${state}: locked by pid 7 on pod-a; waiting up to 1 s`);
    expect(reset.stderr).toContain(`note: state ${state}: took over the lock of pid 7 on pod-a, which is gone`);
    expect(existsSync(`${state}.lock`)).toBe(false);
  });

  if (NO_NAMESPACES) it.skip(`skipped: ${NO_NAMESPACES}`);
});
