/**
 * Locks as leases (issue 26 item 4): a lock this process cannot check (another host, another container) is taken
 * over once it has gone a whole lease without a beat; a lock naming this process's own pid is a dead process's;
 * the holder's beats go on while its main thread is busy.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/state/lock.js';
import { thisProcess } from '../../src/state/lock-owner.js';
import { acquireStateLock } from '../../src/state/state-lock.js';
import { foreignHolder } from './lock-helpers.js';

const LEASE = 'MEMBERCTL_LOCK_LEASE_SECONDS';
const before = process.env[LEASE];
beforeEach(() => {
  process.env[LEASE] = '1';
});
afterEach(() => {
  if (before === undefined) delete process.env[LEASE];
  else process.env[LEASE] = before;
});

const folder = () => mkdtempSync(join(tmpdir(), 'memberctl-lease-'));
const beatOf = (lockPath: string) => (JSON.parse(readFileSync(lockPath, 'utf8')) as { beat: string }).beat;

describe('locks as leases', { timeout: 60_000 }, () => {
  it('a lock naming this very pid that this process does not hold was a dead process: taken at once', async () => {
    process.env[LEASE] = '3600'; // a wait for a lease would time the test out
    const path = join(folder(), 'j');
    writeFileSync(`${path}.lock`, JSON.stringify({ ...thisProcess(), at: 'then', id: 'dead-one' }));
    const notices: string[] = [];
    const lock = await acquireLock(path, 'journal', undefined, { notice: (m) => notices.push(m) });
    expect(notices).toEqual([`journal ${path}: took over the lock of pid ${process.pid}, which is gone`]);
    // and the lock this process does hold stays held: the same file twice in one run is refused
    await expect(acquireLock(path, 'journal')).rejects.toThrow(`is in use by another memberctl (pid ${process.pid},`);
    await lock.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a lock from another host that is not renewed is taken over after one lease, saying so', async () => {
    const path = join(folder(), 's');
    foreignHolder(`${path}.lock`, { pid: 7, host: 'pod-a', at: 'then', id: 'gone', lease: 1 }, false);
    const notices: string[] = [];
    const lock = await acquireLock(path, 'state', undefined, { notice: (m) => notices.push(m) });
    expect(notices).toEqual([
      `state ${path}: locked by pid 7 on pod-a; waiting up to 1 s for it to renew its lease`,
      `state ${path}: took over the lock of pid 7 on pod-a, which is gone`,
    ]);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await lock.release();
  });

  it('the other locks of a process whose lease lapsed are taken at once (one wait per run, not per lock)', async () => {
    const dir = folder();
    const owner = { pid: 7, host: 'pod-a', boot: 'b', pidns: 'pid:[1]', start: 99, at: 'then', lease: 1 };
    foreignHolder(join(dir, 'state.lock'), { ...owner, id: 'one' }, false);
    foreignHolder(join(dir, 'journal.lock'), { ...owner, id: 'two' }, false);
    const notices: string[] = [];
    const notice = (m: string) => notices.push(m);
    const locks = [
      await acquireLock(join(dir, 'state'), 'state', undefined, { notice }),
      await acquireLock(join(dir, 'journal'), 'journal', undefined, { notice }),
    ];
    expect(notices.filter((m) => m.includes('waiting'))).toHaveLength(1);
    expect(notices.filter((m) => m.includes('took over'))).toHaveLength(2);
    for (const lock of locks) await lock.release();
  });

  it('the watcher waits for the longer of its own lease and the holder’s', async () => {
    const path = join(folder(), 's');
    foreignHolder(`${path}.lock`, { pid: 7, host: 'pod-a', at: 'then', id: 'gone', lease: 2 }, false);
    const notices: string[] = [];
    await (await acquireLock(path, 'state', undefined, { notice: (m) => notices.push(m) })).release();
    expect(notices[0]).toContain('waiting up to 2 s');
  });

  it('a garbled lock file (no holder writes one) lapses like a silent lease', async () => {
    const path = join(folder(), 's');
    writeFileSync(`${path}.lock`, '');
    await (await acquireLock(path, 'state')).release();
  });

  it('a stop (Ctrl-C) ends the wait for a lease: refused, saying why', async () => {
    process.env[LEASE] = '3600';
    const path = join(folder(), 's');
    foreignHolder(`${path}.lock`, { pid: 7, host: 'pod-a', at: 'then', id: 'gone' }, false);
    const stop = new AbortController();
    const waiting = acquireLock(path, 'state', undefined, { stop: stop.signal, notice: () => stop.abort() });
    await expect(waiting).rejects.toMatchObject({
      code: 'locked',
      hint: expect.stringContaining('Stopped while waiting for its lease to lapse.'),
    });
  });

  it('the holder renews its lock while its main thread is busy (the beats come from a worker)', async () => {
    const path = join(folder(), 'j');
    const lock = await acquireLock(path, 'journal');
    const first = beatOf(`${path}.lock`);
    // a long synchronous phase: nothing on this thread runs until the beat has changed (or the deadline)
    const deadline = Date.now() + 20_000;
    while (beatOf(`${path}.lock`) === first && Date.now() < deadline);
    expect(beatOf(`${path}.lock`)).not.toBe(first);
    await lock.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a bad lease setting is a usage error naming the variable', async () => {
    process.env[LEASE] = '0';
    await expect(acquireLock(join(folder(), 'j'), 'journal')).rejects.toMatchObject({
      code: 'lock-lease',
      message: 'MEMBERCTL_LOCK_LEASE_SECONDS=0: expected seconds from 1 to 3600',
    });
  });

  it('a shard lock another host abandoned does not keep a whole-state run out, and is cleared away', async () => {
    const path = join(folder(), 'crm.state');
    foreignHolder(`${path}.shard-1-of-3.lock`, { pid: 7, host: 'pod-b', at: 'then', id: 'gone', lease: 1 }, false);
    await (await acquireStateLock(path)).release();
    expect(existsSync(`${path}.shard-1-of-3.lock`)).toBe(false);
  });

  it('a shard lock another host renews keeps a whole-state run out, naming that host', async () => {
    process.env[LEASE] = '30';
    const path = join(folder(), 'crm.state');
    const lockPath = `${path}.shard-1-of-3.lock`;
    const stop = foreignHolder(lockPath, { pid: 7, host: 'pod-b', at: 'then', id: 'x', lease: 30 });
    try {
      await expect(acquireStateLock(path)).rejects.toThrow(
        `state ${path} is in use by another memberctl (pid 7 on pod-b, since then, --shard 1/3)`,
      );
    } finally {
      stop();
    }
  });
});
