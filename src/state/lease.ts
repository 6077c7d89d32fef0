/**
 * A lock held by a process this one cannot check (another host, another container) is a lease: its holder bumps a
 * counter in the lock file (its beat) every expiry/12, and a lock whose file has not changed for a whole expiry,
 * as this process's own monotonic clock measures it, is taken as abandoned. No two clocks are compared, so hosts
 * may disagree about the time by any amount; the price is that a run finding a foreign lock watches it for up to
 * one expiry before taking it over (a live holder shows itself at its next beat, and the run refuses then).
 *
 * The beats come from a worker thread: a main thread busy for minutes (a long synchronous phase) does not starve
 * them. The worker writes the beat in place, through the holder's own descriptor, so a holder that lost its lock
 * (its file replaced by a taker) writes only to its old file and never over its successor's. While another worker
 * runs that can beat (the CSV parsing worker: lock-beats.ts), it takes the beats over and the renewer's thread ends,
 * one isolate less (~8 MB); when that worker ends, its port's closing starts a renewer again.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { UsageError } from '../errors.js';
import { applyV8Flags, keepV8FlagsAcross } from '../v8-flags.js';
import { BEAT_DIGITS, type BeatLock, type FromBeater, type LockBeatsOffer, type ToBeater } from './lock-beats.js';

export { BEAT_DIGITS, beatText } from './lock-beats.js';

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
  /** The ids it was given and not released (a lock given twice would be opened twice). */
  holding: Set<string>;
}

/** A worker of the run's own that took the beats over (lock-beats.ts), through a port of its own. */
interface Adopted {
  port: MessagePort;
  renewMs: number;
  /** It has opened every lock it was given: the renewer's thread can end. */
  beating: boolean;
}

/** The renewer new locks go to (the latest started); `renewers`: every one started and not ended. */
let renewer: Renewer | undefined;
const renewers: Renewer[] = [];
let adopted: Adopted | undefined;
/**
 * The latest worker the run started (not a renewer): the CSV worker starts before the journal's lock is taken, so
 * it is noted here as it starts and offered the beats when a lock is. Weak: an ended worker is not kept.
 */
let candidate: WeakRef<Worker> | undefined;
process.on('worker', (worker: Worker) => {
  if (renewers.some((beats) => beats.worker === worker)) return;
  candidate = new WeakRef(worker);
  offerBeats(worker);
});
const onLost = new Map<string, () => void>();
/** The locks renewed now, with their beat period: what a new beater is given. */
const held = new Map<string, { lock: BeatLock; renewMs: number }>();

/**
 * Renews the lock at `path` (file `ino`, its beat at byte `offset`) until `stop`; `lost` if it is replaced.
 * Stopping does not wait for the worker: it writes through its own descriptor, so a beat after the file was
 * removed lands in the removed file, and a file of another run at the path is told apart by its inode.
 */
export function renew(lock: BeatLock, timing: LeaseTiming, lost: () => void): { stop(): void } {
  onLost.set(lock.id, lost);
  held.set(lock.id, { lock, renewMs: timing.renewMs });
  const hold: ToBeater = { type: 'hold', ...lock };
  // a beater that has not said it beats yet may still fail: the renewer keeps the lock until it does
  if (adopted) adopted.port.postMessage(hold);
  if (!adopted?.beating || adopted.renewMs > timing.renewMs) giveRenewer(startRenewer(timing.renewMs), lock);
  const running = candidate?.deref();
  if (running && running.threadId >= 0) offerBeats(running); // (-1 once it has ended)
  return {
    stop() {
      onLost.delete(lock.id);
      held.delete(lock.id);
      const release: ToBeater = { type: 'release', id: lock.id };
      for (const beats of renewers) if (beats.alive && beats.holding.delete(lock.id)) beats.worker.postMessage(release);
      adopted?.port.postMessage(release);
    },
  };
}

function giveRenewer(beats: Renewer, lock: BeatLock): void {
  if (beats.holding.has(lock.id)) return;
  beats.holding.add(lock.id);
  beats.worker.postMessage({ type: 'hold', ...lock } satisfies ToBeater);
}

/**
 * Offers the beats to a worker the run started while it holds locks (only the CSV worker accepts: csv-worker.ts;
 * any other worker must ignore a message of type `lock-beats`). One at a time; the renewer beats on until the worker
 * says it beats every lock, then ends.
 */
function offerBeats(worker: Worker): void {
  if (adopted || !renewer?.alive || renewers.some((beats) => beats.worker === worker) || held.size === 0) return;
  const { port1, port2 } = new MessageChannel();
  const taking: Adopted = { port: port1, renewMs: renewer.renewMs, beating: false };
  adopted = taking;
  port1.on('message', (message: FromBeater) => {
    if (message.type === 'lost') onLost.get(message.id)?.();
    else {
      taking.beating = true;
      retireRenewer(taking.renewMs);
    }
  });
  // the worker ended (its work done, terminated, or out of memory): the renewer beats again, at once
  port1.on('close', () => {
    if (adopted === taking) adopted = undefined;
    restartRenewer();
  });
  port1.unref();
  const offer: LockBeatsOffer = {
    type: 'lock-beats',
    port: port2,
    renewMs: taking.renewMs,
    locks: [...held.values()].map((entry) => entry.lock),
  };
  worker.postMessage(offer, [port2]);
}

/** Ends the renewer's thread once a worker beats for it (unless a lock needs beats more often than that worker's). */
function retireRenewer(adoptedRenewMs: number): void {
  const retiring = renewer;
  if (!retiring?.alive || retiring.renewMs < adoptedRenewMs) return;
  retiring.worker.removeAllListeners('exit');
  retiring.worker.removeAllListeners('error');
  ended(retiring);
  // its start set V8's flags back (v8-flags.ts), and it may end before it was online to set them again: +16 MB of
  // young generation for the rest of the run (1M rows: 165 → 186 MB)
  void retiring.worker.terminate().then(() => applyV8Flags());
}

/** Every lock still held goes to a renewer (a running one keeps what it has). */
function restartRenewer(): void {
  if (held.size === 0) return;
  const started = startRenewer(Math.min(...[...held.values()].map((entry) => entry.renewMs)));
  for (const { lock } of held.values()) giveRenewer(started, lock);
}

function startRenewer(renewMs: number): Renewer {
  if (renewer?.alive && renewer.renewMs <= renewMs) return renewer;
  // (one worker per process; a shorter lease than the running worker's, in tests only, gets its own)
  // (execArgv: none of the run's own node flags; --input-type=module, say, would make this script a module)
  const worker = new Worker(RENEWER, { eval: true, workerData: { renewMs }, execArgv: [] });
  keepV8FlagsAcross(worker);
  const started: Renewer = { worker, renewMs, alive: true, holding: new Set() };
  worker.on('message', (message: { type: 'lost'; id: string }) => onLost.get(message.id)?.());
  const gone = () => {
    // no more beats: every lock it renewed will lapse, so say so rather than hold on silently
    ended(started);
    for (const lost of onLost.values()) lost();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  // it never keeps the process alive: a run that ends ends its beats, and its locks then lapse or are released
  // (unref after the listeners: adding a 'message' listener refs the worker again)
  worker.unref();
  renewer = started;
  renewers.push(started);
  return started;
}

function ended(beats: Renewer): void {
  beats.alive = false;
  const at = renewers.indexOf(beats);
  if (at >= 0) renewers.splice(at, 1);
  if (renewer === beats) renewer = undefined;
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
