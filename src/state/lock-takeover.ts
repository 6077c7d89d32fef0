/**
 * Taking over (or removing) an abandoned lock, race-free between any number of runs on any hosts. POSIX has no
 * compare-and-swap on a file's content, so the runs that found the same abandoned lock first elect one of them:
 * each tries to create `LOCK.take-HASH-0` (O_EXCL: exactly one succeeds), HASH naming the abandoned content. The
 * winner reads the lock again and, only if it is still that content, renames its own lock file over it (or
 * removes it); the name is never free in between. The others wait until the lock changes. A winner killed before
 * it finished leaves its claim: once the lock has again gone a whole lease unchanged, the next claim (-1, -2, …)
 * is tried. The one assumption is the lease's own: no live run pauses for a whole lease. The folder is fsynced
 * after the rename (or removal), as every writer here does after a rename it promises will survive.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../io/sync-directory.js';
import { watchLease, type LeaseTiming } from './lease.js';

/**
 * Replaces the lock at `lockPath` by `replacement` (a complete lock file), or removes it without one, if it still
 * reads `seen`. True if this run did it; false if the lock changed (another run took it over, or its holder beat).
 */
export async function takeOverIfUnchanged(
  lockPath: string,
  seen: string,
  timing: LeaseTiming,
  replacement?: string,
): Promise<boolean> {
  const tag = createHash('sha256').update(seen).digest('hex').slice(0, 16);
  for (let k = 0; k < 8; k++) {
    const claim = `${lockPath}.take-${tag}-${k}`;
    if (!(await create(claim))) {
      // another run is taking it over (the lock changes at once) or died doing so (it stays as it was)
      if ((await watchLease(lockPath, seen, () => false, timing)) !== 'lapsed') return false;
      continue;
    }
    try {
      if ((await readFile(lockPath, 'utf8').catch(() => undefined)) !== seen) return false;
      if (replacement) await rename(replacement, lockPath);
      else await unlink(lockPath);
      // the new name lives in the folder: without this, a power cut right after can bring the old lock back
      await syncDirectory(dirname(lockPath));
      return true;
    } finally {
      // this claim and those of winners that died before: no run needs them once the lock has changed
      for (let j = 0; j <= k; j++) await unlink(`${lockPath}.take-${tag}-${j}`).catch(() => undefined);
    }
  }
  return false;
}

async function create(claim: string): Promise<boolean> {
  try {
    await writeFile(claim, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
