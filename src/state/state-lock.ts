/**
 * Who may use a --state file at the same time. Shards of one count may share it: a member always hashes to the
 * same shard of n, so their confirmations never touch the same member, and SQLite's WAL and busy timeout order
 * their writes. Each holds its own STATE.shard-I-of-N.lock. Anything else needs the state alone, because its
 * members overlap every shard's: a run without --shard, a shard of another count (0/3 and 0/4 share members),
 * `state forget` and `state reset`. Those hold STATE.lock.
 *
 * A run takes its own lock first, then looks for the locks it conflicts with, and if one is held it lets its own
 * go and refuses (exit 2, naming the holder's pid). Of two conflicting runs starting together, the one whose lock
 * came second looks after both were in place and sees the other: they never both go on (rarely both refuse,
 * which running again clears). Locks of dead processes (lapsed leases: lock.ts) are removed.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { acquireLock, inUse, liveHolder, type HeldLock, type LockOptions } from './lock.js';
import { shardLabel, type Shard } from './shard.js';

const SHARDS_APART =
  'Runs on one state may overlap only as shards of one count (--shard 0/N, 1/N, …); anything else needs it alone. ';

/** Takes the state's lock for a run with `shard` (or without: the whole state), or throws naming the holder. */
export async function acquireStateLock(path: string, shard?: Shard, options: LockOptions = {}): Promise<HeldLock> {
  const lock = await acquireLock(path, 'state', shard ? shardLockPath(path, shard) : `${path}.lock`, options);
  try {
    await refuseOverlappingRuns(path, shard, options);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return lock;
}

function shardLockPath(path: string, shard: Shard): string {
  return `${path}.${shardLabel(shard)}.lock`;
}

async function refuseOverlappingRuns(path: string, shard: Shard | undefined, options: LockOptions): Promise<void> {
  const others: { lockPath: string; holding?: string }[] = [];
  if (shard) others.push({ lockPath: `${path}.lock` });
  for (const other of await shardLocks(path)) {
    if (shard?.count !== other.shard.count)
      others.push({ lockPath: other.lockPath, holding: `--shard ${other.shard.index}/${other.shard.count}` });
  }
  // (together: the locks of other hosts are watched for a lease each, and one lease is enough for all)
  const holders = await Promise.all(others.map(({ lockPath }) => liveHolder(lockPath, options)));
  holders.forEach((holder, i) => {
    const { lockPath, holding } = others[i]!;
    if (holder !== undefined)
      throw inUse('state', path, lockPath, holder === 'garbled' ? undefined : holder, holding, SHARDS_APART);
  });
}

/** The shard lock files beside the state (held or stale: liveHolder tells). */
async function shardLocks(path: string): Promise<{ lockPath: string; shard: Shard }[]> {
  const prefix = `${basename(path)}.shard-`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot lock state ${path}: its folder cannot be listed: ${cause}`, {
      code: 'lock-failed',
      details: { cause },
      cause: error,
      hint: 'Check that its folder is readable.',
    });
  }
  const found: { lockPath: string; shard: Shard }[] = [];
  for (const name of names) {
    const match =
      name.startsWith(prefix) && name.endsWith('.lock')
        ? /^(\d+)-of-(\d+)$/.exec(name.slice(prefix.length, -'.lock'.length))
        : null;
    if (match)
      found.push({ lockPath: join(dirname(path), name), shard: { index: Number(match[1]), count: Number(match[2]) } });
  }
  return found;
}
