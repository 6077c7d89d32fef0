/**
 * A lock held by a process this one cannot check (another host, another container) is a lease: its holder bumps a
 * counter in the lock file (its beat) every expiry/12, and a lock whose file has not changed for a whole expiry,
 * as this process's own monotonic clock measures it, is taken as abandoned. No two clocks are compared, so hosts
 * may disagree about the time by any amount; the price is that a run finding a foreign lock watches it for up to
 * one expiry before taking it over (a live holder shows itself at its next beat, and the run refuses then).
 *
 * The beats come from a worker thread: a main thread busy for minutes (a long synchronous phase) does not starve
 * them. The worker writes the beat in place, through the holder's own descriptor, so a holder that lost its lock
 * (its file replaced by a taker) writes only to its old file and never over its successor's.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { UsageError } from '../errors.js';
import { keepV8FlagsAcross } from '../v8-flags.js';

export const LEASE_ENV = 'MEMBERCTL_LOCK_LEASE_SECONDS';
export const DEFAULT_LEASE_SECONDS = 60;
const MAX_LEASE_SECONDS = 3600;
/** Beats per expiry: one late or lost beat (a slow disk, a loaded machine) is far from losing the lease. */
const BEATS_PER_EXPIRY = 12;

export interface LeaseTiming {
  expiryMs: number;
  renewMs: number;
  /** How often a watcher reads a foreign lock. */
  pollMs: number;
}

/** The lease from MEMBERCTL_LOCK_LEASE_SECONDS (tests shorten it), or 60 s. */
export function leaseTiming(value = process.env[LEASE_ENV]): LeaseTiming {
  const seconds = value === undefined || value === '' ? DEFAULT_LEASE_SECONDS : Number(value);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_LEASE_SECONDS)
    throw new UsageError(`${LEASE_ENV}=${value}: expected seconds from 1 to ${MAX_LEASE_SECONDS}`, {
      code: 'lock-lease',
      hint: `Unset it for the default lease of ${DEFAULT_LEASE_SECONDS} s (docs/safety.md).`,
    });
  return timingOf(seconds * 1000);
}

/** The timing for a lease of `expiryMs` (a watcher uses the longer of its own and the holder's). */
export function timingOf(expiryMs: number): LeaseTiming {
  return {
    expiryMs,
    renewMs: expiryMs / BEATS_PER_EXPIRY,
    pollMs: Math.min(1000, Math.max(25, expiryMs / 40)),
  };
}

/** The beat's place in a lock file: ten digits, rewritten in place. */
export const BEAT_DIGITS = 10;
export const beatText = (beat: number) => String(beat).padStart(BEAT_DIGITS, '0');

/**
 * Plain JavaScript for the worker (no module to find beside the built file). It opens each lock it renews itself,
 * checking that it is the file taken (its inode), and closes it on `release`.
 */
const RENEWER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const held = new Map();
const lost = (lock) => { held.delete(lock.id); fs.closeSync(lock.fd); parentPort.postMessage({ type: 'lost', id: lock.id }); };
setInterval(() => {
  for (const lock of held.values()) {
    try {
      if (fs.statSync(lock.path).ino !== fs.fstatSync(lock.fd).ino) { lost(lock); continue; }
      lock.beat++;
      fs.writeSync(lock.fd, String(lock.beat).padStart(${BEAT_DIGITS}, '0'), lock.offset);
      fs.fdatasyncSync(lock.fd);
    } catch (error) {
      if (error.code === 'ENOENT' || error.code === 'ESTALE') lost(lock);
      // anything else (EIO, an NFS server away): tried again at the next beat, with a whole expiry to succeed
    }
  }
}, workerData.renewMs);
parentPort.on('message', (message) => {
  if (message.type === 'hold') {
    // its own descriptor (a worker closing the main thread's would be warned about), of the very file taken
    const lock = { ...message, beat: 0, fd: -1 };
    try {
      lock.fd = fs.openSync(lock.path, 'r+');
      if (fs.fstatSync(lock.fd).ino === lock.ino) held.set(lock.id, lock);
      else lost(lock);
    } catch {
      if (lock.fd >= 0) fs.closeSync(lock.fd);
      parentPort.postMessage({ type: 'lost', id: lock.id });
    }
  } else {
    const lock = held.get(message.id);
    if (lock) { held.delete(message.id); fs.closeSync(lock.fd); }
  }
});
`;

interface Renewer {
  worker: Worker;
  renewMs: number;
  alive: boolean;
}

let renewer: Renewer | undefined;
const onLost = new Map<string, () => void>();

/**
 * Renews the lock at `path` (file `ino`, its beat at byte `offset`) until `stop`; `lost` if it is replaced.
 * Stopping does not wait for the worker: it writes through its own descriptor, so a beat after the file was
 * removed lands in the removed file, and a file of another run at the path is told apart by its inode.
 */
export function renew(
  lock: { id: string; path: string; ino: number; offset: number },
  timing: LeaseTiming,
  lost: () => void,
): { stop(): void } {
  const beats = startRenewer(timing.renewMs);
  onLost.set(lock.id, lost);
  beats.worker.postMessage({ type: 'hold', ...lock });
  return {
    stop() {
      onLost.delete(lock.id);
      if (beats.alive) beats.worker.postMessage({ type: 'release', id: lock.id });
    },
  };
}

function startRenewer(renewMs: number): Renewer {
  if (renewer?.alive && renewer.renewMs <= renewMs) return renewer;
  // (one worker per process; a shorter lease than the running worker's, in tests only, gets its own)
  // (execArgv: none of the run's own node flags; --input-type=module, say, would make this script a module)
  const worker = new Worker(RENEWER, { eval: true, workerData: { renewMs }, execArgv: [] });
  keepV8FlagsAcross(worker);
  const started: Renewer = { worker, renewMs, alive: true };
  worker.on('message', (message: { type: 'lost'; id: string }) => onLost.get(message.id)?.());
  const gone = () => {
    // no more beats: every lock it renewed will lapse, so say so rather than hold on silently
    started.alive = false;
    for (const lost of onLost.values()) lost();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  // it never keeps the process alive: a run that ends ends its beats, and its locks then lapse or are released
  // (unref after the listeners: adding a 'message' listener refs the worker again)
  worker.unref();
  renewer = started;
  return started;
}

/** What watching a foreign lock showed: its holder beat, another lock took its place, it lapsed, or we were stopped. */
export type Watched = 'renewed' | 'changed' | 'lapsed' | 'stopped';

/**
 * Watches the lock at `lockPath`, last read as `seen`, until it changes or `timing.expiryMs` pass without a change.
 * `sameHolder` tells a beat (the holder lives) from another lock in its place (look again).
 */
export async function watchLease(
  lockPath: string,
  seen: string,
  sameHolder: (text: string) => boolean,
  timing: LeaseTiming,
  stop?: AbortSignal,
): Promise<Watched> {
  const since = performance.now();
  while (performance.now() - since < timing.expiryMs) {
    await sleep(timing.pollMs, undefined, { signal: stop }).catch(() => undefined);
    if (stop?.aborted) return 'stopped';
    const now = await readFile(lockPath, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : Promise.reject(error),
    );
    if (now === undefined) return 'changed';
    if (now !== seen) return sameHolder(now) ? 'renewed' : 'changed';
  }
  return 'lapsed';
}
