/**
 * A lock taken over is durable: after the rename over the abandoned lock (or its removal) the folder is fsynced,
 * so a power cut right after cannot bring the old lock back. The folder's fsync is watched through the one helper
 * every writer uses (src/io/sync-directory.ts), which already tolerates file systems that refuse it.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** What the lock file held each time its folder was fsynced (undefined: no lock file). */
const synced = vi.hoisted(() => [] as { dir: string; lock: string | undefined }[]);
vi.mock('../../src/io/sync-directory.js', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  return {
    syncDirectory: async (dir: string) => {
      const lock = path.join(dir, 'journal.lock');
      synced.push({ dir, lock: fs.existsSync(lock) ? fs.readFileSync(lock, 'utf8') : undefined });
    },
  };
});

const { takeOverIfUnchanged } = await import('../../src/state/lock-takeover.js');
const TIMING = { expiryMs: 60_000, renewMs: 20_000, pollMs: 10 };

function abandonedLock(): { dir: string; lock: string } {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-takeover-'));
  const lock = join(dir, 'journal.lock');
  writeFileSync(lock, 'abandoned\n');
  return { dir, lock };
}

describe('taking over an abandoned lock', () => {
  it('fsyncs the folder once the new lock is in place', async () => {
    synced.length = 0;
    const { dir, lock } = abandonedLock();
    const replacement = join(dir, 'journal.lock.new');
    writeFileSync(replacement, 'mine\n');
    expect(await takeOverIfUnchanged(lock, 'abandoned\n', TIMING, replacement)).toBe(true);
    expect(readFileSync(lock, 'utf8')).toBe('mine\n');
    expect(synced).toEqual([{ dir, lock: 'mine\n' }]);
  });

  it('fsyncs the folder once an abandoned lock is removed', async () => {
    synced.length = 0;
    const { dir, lock } = abandonedLock();
    expect(await takeOverIfUnchanged(lock, 'abandoned\n', TIMING)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(synced).toEqual([{ dir, lock: undefined }]);
  });

  it('does nothing, and syncs nothing, when the lock changed meanwhile', async () => {
    synced.length = 0;
    const { lock } = abandonedLock();
    expect(await takeOverIfUnchanged(lock, 'something else\n', TIMING)).toBe(false);
    expect(synced).toEqual([]);
  });
});
