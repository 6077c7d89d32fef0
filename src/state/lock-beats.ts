/**
 * The lock beats in a worker that has other work: the CSV parsing worker takes them over from the lock renewer's
 * thread while it runs, so a run keeps one worker isolate less (~8 MB of its peak RSS; docs/decisions.md, issue 28).
 * The same beat as lease.ts's renewer (its RENEWER script, which must stay plain JavaScript for a worker started from
 * the sources): each lock opened here by path and checked by inode, its counter rewritten in place and synced every
 * `renewMs`, a lock replaced or removed reported as lost. The host worker's work must come in short pieces (the CSV
 * worker parses one ~64 KB chunk per message), so the timer is never held back for long.
 *
 * Kept free of the rest of state/ (no Worker, no errors, no V8 flags): it runs inside the CSV worker.
 */
import { closeSync, fdatasyncSync, fstatSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';

/** The beat's place in a lock file: ten digits, rewritten in place. */
export const BEAT_DIGITS = 10;
export const beatText = (beat: number) => String(beat).padStart(BEAT_DIGITS, '0');

/** A lock to beat: the file taken (`ino`) and where its counter is. */
export interface BeatLock {
  id: string;
  path: string;
  ino: number;
  offset: number;
}

/** From the holder: the port to hear holds and releases on and answer on, and the locks held now. */
export interface LockBeatsOffer {
  type: 'lock-beats';
  port: MessagePort;
  renewMs: number;
  locks: BeatLock[];
}

/** On the offer's port, to the beater: one more lock, or one released. */
export type ToBeater = ({ type: 'hold' } & BeatLock) | { type: 'release'; id: string };
/** On the offer's port, from the beater: it beats every lock it was given (but those it reported lost). */
export type FromBeater = { type: 'beating' } | { type: 'lost'; id: string };

interface Beating extends BeatLock {
  fd: number;
  beat: number;
}

/**
 * Starts beating the offer's locks here, until this thread ends (its port closing tells the holder, which then
 * starts its own renewer again). Answers `beating` once every lock is open.
 */
export function beatLocks(offer: LockBeatsOffer): void {
  const { port } = offer;
  const held = new Map<string, Beating>();
  const post = (message: FromBeater) => port.postMessage(message);
  const lost = (lock: Beating) => {
    held.delete(lock.id);
    closeSync(lock.fd);
    post({ type: 'lost', id: lock.id });
  };
  const hold = (lock: BeatLock) => {
    if (held.has(lock.id)) return;
    let fd = -1;
    try {
      fd = openSync(lock.path, 'r+');
      if (fstatSync(fd).ino !== lock.ino) throw new Error('replaced');
      // on from the counter the last beater wrote: every beat changes the file
      const digits = Buffer.alloc(BEAT_DIGITS);
      readSync(fd, digits, 0, BEAT_DIGITS, lock.offset);
      held.set(lock.id, { ...lock, fd, beat: Number(digits.toString('latin1')) || 0 });
    } catch {
      if (fd >= 0) closeSync(fd);
      post({ type: 'lost', id: lock.id });
    }
  };
  const beat = () => {
    for (const lock of held.values()) {
      try {
        if (statSync(lock.path).ino !== fstatSync(lock.fd).ino) {
          lost(lock);
          continue;
        }
        lock.beat++;
        writeSync(lock.fd, beatText(lock.beat), lock.offset);
        fdatasyncSync(lock.fd);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ESTALE') lost(lock);
        // anything else (EIO, an NFS server away): tried again at the next beat, with a whole expiry to succeed
      }
    }
  };
  for (const lock of offer.locks) hold(lock);
  port.on('message', (message: ToBeater) => {
    if (message.type === 'hold') hold(message);
    else {
      const lock = held.get(message.id);
      if (!lock) return;
      held.delete(message.id);
      closeSync(lock.fd);
    }
  });
  setInterval(beat, offer.renewMs);
  post({ type: 'beating' });
}
