import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/state/lock.js';

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
    for (const r of results) if (r.status === 'rejected') expect((r.reason as Error).message).toContain(`journal ${path} is in use by another memberctl (pid ${process.pid}`);
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>>).value.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a lock of a dead process is taken over by exactly one of many takers', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 's');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: await deadPid(), host: hostname(), at: 'then', id: 'old' }));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireLock(path, 'state')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('a lock from another host is held (its pid cannot be checked here)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memberctl-lock-')), 's');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 4242, host: 'elsewhere', at: 'then', id: 'x' }));
    await expect(acquireLock(path, 'state')).rejects.toThrow(`state ${path} is in use by another memberctl (pid 4242 on elsewhere, since then)`);
  });
});
