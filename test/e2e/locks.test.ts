/**
 * Two runs on one journal or one state (issue 15 item 8): the second refuses at once; kill -9 leaves no stuck lock.
 * The holder is a spawned process (killed -9); the runs it refuses are the whole command line in-process, in this
 * test's own process (test/cli/run-in-process.ts): a lock held by another process either way.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startHoldingProxy } from './holding-proxy.js';
import { isolatedEnv, membersCsv, spawnCli, tempDir, until } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

describe('locks', { timeout: 120_000 }, () => {
  it('a second run on the same journal and state is refused naming the holder; after kill -9 the next run goes on', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    // after its first batch the holder's requests are held open until it is killed: it stays alive through the
    // checks however slow the machine (a latency to race against let it finish first under load)
    let holding = true;
    const proxy = await startHoldingProxy(box.url, () => holding && box!.stats().importedCount > 0);
    onTestFinished(() => proxy.close());
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: proxy.url, MEMBERCTL_TOKEN: box.memberToken });
    const dir = tempDir();
    const file = membersCsv(dir, 400);
    const state = join(dir, 'members.state');
    const args = ['import', file, '--batch-size', '10', '--concurrency', '1', '--state', state];
    const holder = spawnCli(args, env);
    await until(() => proxy.held() > 0, 'the first run to be under way');

    const second = await runInProcess([...args, '--resume'], env);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`is in use by another memberctl (pid ${holder.child.pid}`);
    // another journal, the same state: refused too
    const copy = membersCsv(dir, 5, undefined, 'other.csv');
    const third = await runInProcess(['import', copy, '--state', state], env);
    expect(third.code).toBe(2);
    expect(third.stderr).toContain(`state ${state} is in use by another memberctl (pid ${holder.child.pid}`);
    // a correction while the import runs is refused too
    expect((await runInProcess(['state', 'reset', '--state', state], env)).code).toBe(2);

    holder.child.kill('SIGKILL');
    await holder.result;
    holding = false;
    proxy.release();
    expect(existsSync(`${file}.memberctl-journal.lock`)).toBe(true); // left behind by the killed run
    const resumed = await runInProcess([...args, '--resume', '--json'], env);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as {
      rows: number;
      importedCount: number;
      updatedCount: number;
      failed: number;
    };
    // (a batch in flight at the kill was applied but not journaled: sent again, it counts as updated)
    expect(report).toMatchObject({ rows: 400, failed: 0 });
    expect(report.importedCount + report.updatedCount).toBe(400);
    expect(existsSync(`${file}.memberctl-journal.lock`)).toBe(false);
    expect(existsSync(`${state}.lock`)).toBe(false);
  });

  it('a shard run shares its state with the shards of its count only: a run without --shard, another count and a reset are refused', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    // the shard run's requests are held open until the checks are done: it stays alive however slow the machine
    let holding = true;
    const proxy = await startHoldingProxy(box.url, () => holding);
    try {
      const env = isolatedEnv({ MEMBERCTL_BASE_URL: proxy.url, MEMBERCTL_TOKEN: box.memberToken });
      const dir = tempDir();
      const file = membersCsv(dir, 400);
      const state = join(dir, 'members.state');
      const shardRun = (shard: string, ...extra: string[]) => [
        'import',
        file,
        '--shard',
        shard,
        '--batch-size',
        '10',
        '--concurrency',
        '1',
        '--state',
        state,
        '--json',
        ...extra,
      ];
      const holder = spawnCli(shardRun('0/3'), env);
      await until(() => proxy.held() > 0, 'the shard run to be under way');
      const refusal = `state ${state} is in use by another memberctl (pid ${holder.child.pid}, since `;

      const whole = await runInProcess(['import', file, '--state', state, '--no-journal'], env);
      expect(whole.code).toBe(2);
      expect(whole.stderr).toContain(refusal);
      expect(whole.stderr).toContain('--shard 0/3)');
      const otherCount = await runInProcess(shardRun('1/4'), env);
      expect(otherCount.code).toBe(2);
      expect(otherCount.stderr).toContain(refusal);
      expect((await runInProcess(['state', 'reset', '--state', state], env)).code).toBe(2);
      expect(box.stats().importedCount).toBe(0); // the refused runs sent nothing
      // the shards of its count go on beside it
      holding = false;
      const sibling = await runInProcess(shardRun('1/3'), env);
      expect(sibling.code).toBe(0);
      proxy.release(); // the held request fails as a dropped connection, and is retried

      const first = await holder.result;
      expect(first.code).toBe(0);
      const sent = [first, sibling].map(
        (run) => JSON.parse(run.stdout) as { importedCount: number; updatedCount: number },
      );
      expect(box.stats().importedCount).toBe(sent[0]!.importedCount + sent[0]!.updatedCount + sent[1]!.importedCount);
      // free again: a run without --shard takes the state
      expect(
        (await runInProcess(['import', file, '--state', state, '--no-journal', '--changed-only', '--json'], env)).code,
      ).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('a lock left by a process that is not memberctl (a reused pid) or by nobody is taken over', async () => {
    const dir = tempDir();
    const file = membersCsv(dir, 3);
    // pid 1 is alive but is not memberctl
    writeFileSync(
      `${file}.memberctl-journal.lock`,
      JSON.stringify({ pid: 1, host: (await import('node:os')).hostname(), at: new Date().toISOString() }),
    );
    const run = await runInProcess(['import', file, '--sandbox'], isolatedEnv());
    expect(run.code).toBe(0);
    expect(existsSync(`${file}.memberctl-journal.lock`)).toBe(false);
  });
});
