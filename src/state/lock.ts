/**
 * One run at a time on a journal or a state file, git-style: a lock file beside it (`PATH.lock`) naming its holder
 * (pid, host, boot, pid namespace: lock-owner.ts), renewed by the holder as a lease (lease.ts). A second run
 * refuses (exit 2, naming the holder). A lock whose holder is gone (kill -9, an OOM-killed pod, a power cut) is
 * taken over: at once where its pid can be checked (this host, boot and container) and the pid no longer runs
 * memberctl, or is this very process's pid while this process does not hold it; anywhere else once it has gone a
 * whole lease expiry without a beat.
 *
 * The lock file appears whole or not at all: its content is written and synced to a temp file first and linked
 * into place (link fails when the name exists, so two runs cannot both take a free lock). An abandoned lock is
 * replaced by renaming the temp file over it, by one run only (lock-takeover.ts), so the name is never free in
 * between for a third run to take.
 */
import { closeSync, fdatasync, fstatSync, open, readFileSync, unlinkSync, write } from 'node:fs';
import { link, readFile, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { beatText, leaseTiming, renew, timingOf, watchLease, type LeaseTiming } from './lease.js';
import { onThisMachine, stillRuns, thisProcess, type LockOwner } from './lock-owner.js';
import { takeOverIfUnchanged } from './lock-takeover.js';
import { cannotLock, describeHolder, inUse, type LockHolder } from './lock-messages.js';

export { inUse, type LockHolder } from './lock-messages.js';

interface LockContent extends LockOwner {
  at: string;
  /** Tells this lock from another with the same pid (a lock taken twice in one process, a reused pid). */
  id: string;
  /** The holder's lease in seconds: a watcher waits at least this long for a beat. */
  lease?: number;
  /** Bumped by the holder every lease/12 (lease.ts); the last field, so its bytes can be rewritten in place. */
  beat?: string;
}

export interface LockOptions {
  /** Told when the run waits for a foreign lock's lease, and when it takes one over. */
  notice?: (message: string) => void;
  /** Ends a wait for a lease (Ctrl-C): the run refuses as if the lock were held. */
  stop?: AbortSignal;
}

export interface HeldLock {
  readonly path: string;
  /**
   * Aborted if another run took the lock over while this one held it (its file removed by hand, or this process
   * stopped for a whole lease): this run must stop writing what the lock guards.
   */
  readonly lost: AbortSignal;
  /** Removes the lock file if it is still this run's. Safe to call twice. */
  release(): Promise<void>;
}

/** The ids of the locks this process holds or is taking: a lock with this pid and one of them is not abandoned. */
const ours = new Set<string>();
const held = new Set<{ path: string; id: string }>();
/**
 * Processes elsewhere whose lease this run saw lapse. One process renews all its locks together, so its other
 * locks (a run's journal and state) are taken at once: a restarted run waits one lease, not one per lock.
 */
const lapsedOwners = new Set<string>();
const ownerKey = (owner: LockOwner | undefined) =>
  owner?.start === undefined ? undefined : [owner.host, owner.boot, owner.pidns, owner.pid, owner.start].join(' ');
let exitHookInstalled = false;

/** Takes `${path}.lock` for this process, or throws a UsageError naming the holder. `what`: "journal", "state". */
export async function acquireLock(
  path: string,
  what: string,
  lockPath = `${path}.lock`,
  options: LockOptions = {},
): Promise<HeldLock> {
  const timing = leaseTiming();
  const content: LockContent = {
    ...thisProcess(),
    at: new Date().toISOString(),
    id: randomBytes(8).toString('hex'),
    lease: timing.expiryMs / 1000,
  };
  const { text, beatOffset } = render(content);
  const temp = `${lockPath}.${process.pid}-${content.id}`;
  ours.add(content.id);
  const fd = await createLockFile(temp, text).catch((error) => {
    ours.delete(content.id);
    return Promise.reject(cannotLock(what, path, lockPath, error));
  });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      if (await linkInPlace(temp, lockPath).catch((error) => Promise.reject(cannotLock(what, path, lockPath, error))))
        return holding(lockPath, content.id, fd, beatOffset, timing);
      const seen = await readLock(lockPath);
      if (seen === undefined) continue; // released meanwhile: try again
      const verdict = await judge(seen, lockPath, timing, { ...options, what: `${what} ${path}` });
      if (verdict === 'changed') continue;
      if (verdict !== 'abandoned') throw inUse(what, path, lockPath, verdict.holder, undefined, verdict.why);
      if (await takeOverIfUnchanged(lockPath, seen.text, timing, temp)) {
        options.notice?.(`${what} ${path}: took over the lock of ${describeHolder(seen.content)}, which is gone`);
        return holding(lockPath, content.id, fd, beatOffset, timing);
      }
    }
    throw inUse(what, path, lockPath, undefined);
  } catch (error) {
    ours.delete(content.id);
    closeSync(fd);
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The lock's JSON with the beat last, and the byte offset of the beat's digits. */
function render(content: LockContent): { text: string; beatOffset: number } {
  const head = `${JSON.stringify(content).slice(0, -1)},"beat":"`;
  return { text: `${head}${beatText(0)}"}`, beatOffset: Buffer.byteLength(head) };
}

async function createLockFile(temp: string, text: string): Promise<number> {
  const fd = await promisify(open)(temp, 'wx', 0o600);
  try {
    await promisify(write)(fd, text);
    await promisify(fdatasync)(fd); // a power cut must not leave an empty lock file in place
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

async function linkInPlace(temp: string, lockPath: string): Promise<boolean> {
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function holding(lockPath: string, id: string, fd: number, beatOffset: number, timing: LeaseTiming): HeldLock {
  const entry = { path: lockPath, id };
  held.add(entry);
  const lost = new AbortController();
  const beats = renew({ id, path: lockPath, ino: fstatSync(fd).ino, offset: beatOffset }, timing, () => lost.abort());
  closeSync(fd); // the renewer opened its own
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // a run that ends through the entry point's exit call (or an uncaught error) must not leave its lock behind either
    process.on('exit', () => {
      for (const lock of held) releaseSync(lock.path, lock.id);
    });
  }
  return {
    path: lockPath,
    lost: lost.signal,
    async release() {
      if (!held.delete(entry)) return;
      beats.stop();
      releaseSync(lockPath, id);
      ours.delete(id);
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

interface SeenLock {
  text: string;
  /** Undefined when the file is not a lock this program wrote (garbled). */
  content?: LockContent;
}

async function readLock(lockPath: string): Promise<SeenLock | undefined> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { text, content: parseLock(text) };
}

function parseLock(text: string): LockContent | undefined {
  try {
    const content = JSON.parse(text) as LockContent;
    return Number.isSafeInteger(content.pid) && typeof content.host === 'string' ? content : undefined;
  } catch {
    return undefined;
  }
}

type Verdict = 'changed' | 'abandoned' | { holder?: LockHolder; why?: string };

/**
 * Is the lock seen held? Where its pid can be checked, at once; anywhere else by watching it for a whole lease
 * (a garbled file too: no holder writes one, so it lapses like a silent lease).
 */
async function judge(
  seen: SeenLock,
  lockPath: string,
  timing: LeaseTiming,
  options: LockOptions & { what: string },
): Promise<Verdict> {
  const holder = seen.content;
  if (holder && onThisMachine(holder)) {
    // this process's own pid: held only if this process took it; else a dead process had the same pid
    if (holder.pid === process.pid) return ours.has(holder.id) ? { holder } : 'abandoned';
    return stillRuns(holder) ? { holder } : 'abandoned';
  }
  const key = ownerKey(holder);
  if (key !== undefined && lapsedOwners.has(key)) return 'abandoned';
  const lease = timingOf(Math.max(timing.expiryMs, Math.min(holder?.lease ?? 0, 3600) * 1000));
  options.notice?.(
    `${options.what}: locked by ${describeHolder(holder)}; waiting up to ${lease.expiryMs / 1000} s for it to renew its lease`,
  );
  const sameHolder = (text: string) => holder !== undefined && parseLock(text)?.id === holder.id;
  const watched = await watchLease(lockPath, seen.text, sameHolder, lease, options.stop);
  if (watched === 'renewed') return { holder };
  if (watched === 'stopped') return { holder, why: 'Stopped while waiting for its lease to lapse. ' };
  if (watched === 'changed') return 'changed';
  if (key !== undefined) lapsedOwners.add(key);
  return 'abandoned';
}

/**
 * Who holds the lock file at `lockPath` now, without taking it: its holder, 'garbled', or undefined when there is
 * none or its holder is gone (state-lock.ts looks at the locks of other runs on a state). An abandoned lock is
 * removed, so the next run need not wait for it again.
 */
export async function liveHolder(
  lockPath: string,
  options: LockOptions = {},
): Promise<LockHolder | 'garbled' | undefined> {
  const timing = leaseTiming();
  for (let attempt = 0; attempt < 50; attempt++) {
    const seen = await readLock(lockPath);
    if (seen === undefined) return undefined;
    const verdict = await judge(seen, lockPath, timing, { ...options, what: lockPath });
    if (verdict === 'changed') continue;
    if (verdict === 'abandoned') {
      await takeOverIfUnchanged(lockPath, seen.text, timing);
      return undefined;
    }
    return verdict.holder ?? 'garbled';
  }
  return 'garbled';
}
