/**
 * One run at a time on a journal or a state file, git-style: a lock file beside it (`PATH.lock`) holding the
 * holder's pid, host and start time. A second run refuses at once (exit 2, naming the pid). A lock whose holder is
 * gone (killed with kill -9, a power cut) is taken over: on the same host, a pid that no longer runs, or that now
 * belongs to a program other than memberctl (a reused pid), holds nothing.
 *
 * The lock file appears whole or not at all: its content is written to a temp file first and linked into place
 * (link fails when the name exists, so two runs cannot both take it). A stale lock is removed by one run at a time
 * (see takeOverStale), so a run that took the lock in between keeps it.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';

interface LockContent {
  pid: number;
  host: string;
  at: string;
  /** Tells this lock from another with the same pid (a lock taken twice in one process). */
  id: string;
}

export interface HeldLock {
  readonly path: string;
  /** Removes the lock file if it is still this run's. Safe to call twice. */
  release(): Promise<void>;
}

const held = new Set<{ path: string; id: string }>();
let exitHookInstalled = false;

/** Takes `${path}.lock` for this process, or throws a UsageError naming the holder. `what`: "journal", "state". */
export async function acquireLock(path: string, what: string, lockPath = `${path}.lock`): Promise<HeldLock> {
  const content: LockContent = {
    pid: process.pid,
    host: hostname(),
    at: new Date().toISOString(),
    id: randomBytes(8).toString('hex'),
  };
  const temp = `${lockPath}.${process.pid}-${content.id}`;
  await writeFile(temp, JSON.stringify(content), { mode: 0o600 }).catch((error) =>
    Promise.reject(cannotLock(what, path, lockPath, error)),
  );
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(temp, lockPath);
        return holding(lockPath, content.id);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotLock(what, path, lockPath, error);
      }
      const holder = await readHolder(lockPath);
      if (holder === 'gone') continue;
      if (holder !== 'garbled' && !isStale(holder)) throw inUse(what, path, lockPath, holder);
      if (holder === 'garbled') throw inUse(what, path, lockPath, undefined);
      await takeOverStale(lockPath, holder);
    }
    throw inUse(what, path, lockPath, undefined);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

function holding(lockPath: string, id: string): HeldLock {
  const entry = { path: lockPath, id };
  held.add(entry);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // a run that ends through the entry point's exit call (or an uncaught error) must not leave its lock behind either
    process.on('exit', () => {
      for (const lock of held) releaseSync(lock.path, lock.id);
    });
  }
  return {
    path: lockPath,
    async release() {
      if (!held.delete(entry)) return;
      releaseSync(lockPath, id);
    },
  };
}

function releaseSync(lockPath: string, id: string): void {
  try {
    const content = JSON.parse(readFileSync(lockPath, 'utf8')) as LockContent;
    if (content.id === id) unlinkSync(lockPath);
  } catch {
    // gone already, or not ours: nothing to release
  }
}

async function readHolder(lockPath: string): Promise<LockContent | 'gone' | 'garbled'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  try {
    const content = JSON.parse(text) as LockContent;
    return Number.isSafeInteger(content.pid) && typeof content.host === 'string' ? content : 'garbled';
  } catch {
    return 'garbled';
  }
}

/** Only on this host can a pid be checked; a lock from another host (a shared folder) is taken as held. */
function isStale(holder: LockContent): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false; // this very process holds it (the same file twice in one run)
  return !runsMemberctl(holder.pid);
}

function runsMemberctl(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // no such process
  }
  try {
    // Linux: a pid reused by another program does not hold a memberctl lock
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('memberctl');
  } catch {
    return true; // no /proc (macOS) or not readable: the process runs, so the lock is held
  }
}

/**
 * Removes a stale lock while holding `${lockPath}.break`, so only one run at a time may remove one: with two
 * removers, one could remove the fresh lock the other had just linked into place, and both runs would hold it.
 * Under the break lock, the stale file read before is still the one in place (no one removes a lock but its
 * holder, who is gone, and a remover), so unlinking it can only free the name for the next link race.
 */
async function takeOverStale(lockPath: string, seen: LockContent): Promise<void> {
  const breakPath = `${lockPath}.break`;
  const mine = `${breakPath}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(
    mine,
    JSON.stringify({ ...seen, pid: process.pid, host: hostname(), id: randomBytes(8).toString('hex') }),
    { mode: 0o600 },
  );
  try {
    await link(mine, breakPath);
  } catch (error) {
    await unlink(mine).catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const breaker = await readHolder(breakPath);
    // a remover killed in this short window leaves its break lock behind: it holds nothing
    if (breaker !== 'gone' && breaker !== 'garbled' && isStale(breaker)) await unlink(breakPath).catch(() => undefined);
    else await sleep(5); // another run is removing it: look again once it is done
    return;
  }
  try {
    const current = await readHolder(lockPath);
    if (current !== 'gone' && current !== 'garbled' && current.id === seen.id)
      await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(breakPath).catch(() => undefined);
    await unlink(mine).catch(() => undefined);
  }
}

/**
 * Who holds the lock file at `lockPath` now, without taking it: its holder, 'garbled' (taken as held), or
 * undefined when there is none or it is stale (state-lock.ts looks at the locks of other runs on a state).
 */
export async function liveHolder(lockPath: string): Promise<LockHolder | 'garbled' | undefined> {
  const holder = await readHolder(lockPath);
  if (holder === 'gone') return undefined;
  return holder === 'garbled' || !isStale(holder) ? holder : undefined;
}

export type LockHolder = Pick<LockContent, 'pid' | 'host' | 'at'>;

/** "STATE is in use by another memberctl (pid …)"; `holding` says what the other run holds ("--shard 1/3"). */
export function inUse(
  what: string,
  path: string,
  lockPath: string,
  holder: LockHolder | undefined,
  holding?: string,
  why = '',
): UsageError {
  const who = holder
    ? `pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}, since ${holder.at}`
    : 'its lock file cannot be read';
  return new UsageError(`${what} ${path} is in use by another memberctl (${who}${holding ? `, ${holding}` : ''})`, {
    code: 'locked',
    details: holder ? { pid: holder.pid, host: holder.host, lock: lockPath } : { lock: lockPath },
    hint:
      why +
      (holder
        ? `Wait for it to finish${holder.host === hostname() ? `, or stop it (kill ${holder.pid})` : ''}. If no memberctl runs any more, remove ${lockPath}.`
        : `If no memberctl runs any more, remove ${lockPath}.`),
  });
}

function cannotLock(what: string, path: string, lockPath: string, error: unknown): UsageError {
  const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new UsageError(`cannot lock ${what} ${path}: writing ${lockPath} failed: ${cause}`, {
    code: 'lock-failed',
    details: { cause },
    cause: error,
    hint: 'Check that its folder exists and is writable.',
  });
}
