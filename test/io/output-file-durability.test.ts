import { fstatSync, readFileSync } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeOutputFile } from '../../src/io/output-file.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-output-sync-'))));
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface SyncSeen {
  /** The handle synced is a folder (ino of it) or a file. */
  folderIno?: number;
  /** What the output path held at that moment (undefined: nothing there yet). */
  atPath: string | undefined;
}

/** Every fsync of a file handle while `write` runs, with what the output path held at that moment. */
async function syncsDuring(path: string, write: () => Promise<void>): Promise<SyncSeen[]> {
  const probe = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
  await probe.close();
  const seen: SyncSeen[] = [];
  const sync = proto.sync;
  // the prototype is shared by every file handle in this worker: the spy is removed before anything else runs
  const spy = vi.spyOn(proto, 'sync').mockImplementation(function (this: { fd: number }) {
    const info = fstatSync(this.fd);
    let atPath: string | undefined;
    try {
      atPath = readFileSync(path, 'utf8');
    } catch {
      atPath = undefined;
    }
    seen.push({ folderIno: info.isDirectory() ? info.ino : undefined, atPath });
    return sync.call(this);
  });
  try {
    await write();
  } finally {
    spy.mockRestore();
  }
  return seen;
}

describe('an output survives a power cut once written (the file synced before its rename, the folder after)', () => {
  it('replacing a file: the new bytes are synced before the rename and the folder is synced after it', async () => {
    const path = join(dir, 'rejects.csv');
    await writeOutputFile(path, 'rejects', 'old\n');
    const seen = await syncsDuring(path, () => writeOutputFile(path, 'rejects', 'new\n'));
    const folderIno = (await stat(dir)).ino;
    const fileSync = seen.findIndex((s) => s.folderIno === undefined);
    const folderSync = seen.findIndex((s) => s.folderIno === folderIno);
    expect(fileSync, 'the temp file is synced').toBeGreaterThanOrEqual(0);
    expect(seen[fileSync]?.atPath, 'before the rename: the old file is still in place').toBe('old\n');
    expect(folderSync, 'the folder is synced after the rename').toBeGreaterThan(fileSync);
    expect(seen[folderSync]?.atPath, 'after the rename: the new file is in place').toBe('new\n');
  });

  it('a new file a person keeps (linked into place, noClobber): the same order', async () => {
    const path = join(dir, 'mapping.yaml');
    const seen = await syncsDuring(path, () => writeOutputFile(path, 'mapping', 'fields: {}\n', { noClobber: true }));
    const folderIno = (await stat(dir)).ino;
    const fileSync = seen.findIndex((s) => s.folderIno === undefined);
    const folderSync = seen.findIndex((s) => s.folderIno === folderIno);
    expect(seen[fileSync]?.atPath).toBeUndefined();
    expect(folderSync).toBeGreaterThan(fileSync);
    expect(seen[folderSync]?.atPath).toBe('fields: {}\n');
  });
});
