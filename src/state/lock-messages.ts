/** What a lock's refusals and notices say about its holder (lock.ts). */
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import { leaseTiming } from './lease.js';
import { onThisMachine, type LockOwner } from './lock-owner.js';

export type LockHolder = LockOwner & { at: string; lease?: number };

export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'a run whose lock file cannot be read';
  if (onThisMachine(holder)) return `pid ${holder.pid}`;
  return holder.host === hostname()
    ? `pid ${holder.pid} in another container (or boot) of ${holder.host}`
    : `pid ${holder.pid} on ${holder.host}`;
}

/** "STATE is in use by another memberctl (pid …)"; `holding` says what the other run holds ("--shard 1/3"). */
export function inUse(
  what: string,
  path: string,
  lockPath: string,
  holder: LockHolder | undefined,
  holding?: string,
  why = '',
): UsageError {
  const who = holder ? `${describeHolder(holder)}, since ${holder.at}` : 'its lock file cannot be read';
  const here = holder !== undefined && onThisMachine(holder);
  return new UsageError(`${what} ${path} is in use by another memberctl (${who}${holding ? `, ${holding}` : ''})`, {
    code: 'locked',
    details: holder ? { pid: holder.pid, host: holder.host, lock: lockPath } : { lock: lockPath },
    hint:
      why +
      (holder
        ? here
          ? `Wait for it to finish, or stop it (kill ${holder.pid}). If no memberctl runs any more, remove ${lockPath}.`
          : `Wait for it to finish: it renews its lock, and a lock not renewed for ${holder.lease ?? leaseTiming().expiryMs / 1000} s is taken over.`
        : `If no memberctl runs any more, remove ${lockPath}.`),
  });
}

export function cannotLock(what: string, path: string, lockPath: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new UsageError(`cannot lock ${what} ${path}: writing ${lockPath} failed: ${cause}`, {
    code: 'lock-failed',
    details: { cause },
    cause: error,
    hint: 'Check that its folder exists and is writable.',
  });
}
