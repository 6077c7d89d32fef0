import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, type HeldLock } from '../../src/state/lock.js';
import { acquireStateLock } from '../../src/state/state-lock.js';
import { foreignHolder } from './lock-helpers.js';

const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.on('exit', () => resolve(child.pid!));
  });

describe('lock files', () => {
  it('of many concurrent takers exactly one wins; the others name the holder', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 'j');
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireLock(path, 'journal')));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected')
        expect((r.reason as Error).message).toContain(
          `journal ${path} is in use by another memberctl (pid ${process.pid}`,
        );
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>>).value.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a lock of a dead process is taken over by exactly one of many takers', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 's');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: await deadPid(), host: hostname(), at: 'then', id: 'old' }));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireLock(path, 'state')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('a lock from another host is held while its holder renews it, naming the host', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 's');
    // the other host's run: its beat changes while this run watches (lease 30 s: the refusal must not wait for it)
    const stopBeating = foreignHolder(`${path}.lock`, { pid: 4242, host: 'elsewhere', at: 'then', id: 'x', lease: 30 });
    try {
      await expect(acquireLock(path, 'state')).rejects.toThrow(
        `state ${path} is in use by another memberctl (pid 4242 on elsewhere, since then)`,
      );
    } finally {
      stopBeating();
    }
  });
});

describe('state locks: shards of one count share a state, nothing else does', () => {
  const statePath = () => join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 'crm.state');
  const shard = (index: number, count: number) => ({ index, count });

  it('the shards of one count hold a state together', async () => {
    const path = statePath();
    const locks = await Promise.all([0, 1, 2].map((i) => acquireStateLock(path, shard(i, 3))));
    for (const lock of locks) await lock.release();
    expect(readdirSync(dirname(path))).toEqual([]);
  });

  it('a run without --shard, a shard of another count and a correction are refused while a shard holds it, naming it', async () => {
    const path = statePath();
    const held = await acquireStateLock(path, shard(1, 3));
    const refusal = `state ${path} is in use by another memberctl (pid ${process.pid}, since `;
    await expect(acquireStateLock(path)).rejects.toThrow(refusal);
    await expect(acquireStateLock(path)).rejects.toThrow(/, --shard 1\/3\)$/);
    await expect(acquireStateLock(path, shard(0, 4))).rejects.toThrow(refusal);
    await expect(acquireStateLock(path, shard(0, 4))).rejects.toMatchObject({
      code: 'locked',
      category: 'usage',
      details: { pid: process.pid, lock: `${path}.shard-1-of-3.lock` },
    });
    await held.release();
    // a refused run leaves nothing behind, and the state is free again
    expect(readdirSync(dirname(path))).toEqual([]);
    await (await acquireStateLock(path)).release();
  });

  it('no shard may join a run that holds the state alone', async () => {
    const path = statePath();
    const whole = await acquireStateLock(path);
    await expect(acquireStateLock(path, shard(0, 3))).rejects.toThrow(
      `state ${path} is in use by another memberctl (pid ${process.pid}, since `,
    );
    await whole.release();
    await (await acquireStateLock(path, shard(0, 3))).release();
  });

  it('a shard lock left by a dead process holds nothing', async () => {
    const path = statePath();
    writeFileSync(
      `${path}.shard-2-of-3.lock`,
      JSON.stringify({ pid: await deadPid(), host: hostname(), at: 'then', id: 'old' }),
    );
    await (await acquireStateLock(path)).release();
    await (await acquireStateLock(path, shard(0, 5))).release();
  });

  it('of overlapping runs starting together, never two go on', async () => {
    const path = statePath();
    for (let round = 0; round < 20; round++) {
      const results = await Promise.allSettled([
        acquireStateLock(path),
        acquireStateLock(path, shard(0, 2)),
        acquireStateLock(path, shard(1, 3)),
      ]);
      const won = results.filter((r): r is PromiseFulfilledResult<HeldLock> => r.status === 'fulfilled');
      expect(won.length).toBeLessThanOrEqual(1);
      for (const r of results)
        if (r.status === 'rejected') expect((r.reason as Error).message).toContain('is in use by another memberctl');
      for (const lock of won) await lock.value.release();
    }
  });
});
