/**
 * Which existing output memberctl may replace without --force: the file it wrote there itself, unchanged since.
 * Outputs rewritten by every run (rejects, report, validate --output, state absent --out) would otherwise wipe
 * what a person did to them in between (a hand-fixed fix-me.csv). Once such a file is in place, a record beside
 * it, `.NAME.memberctl`, keeps its inode, size and modification time (nanoseconds): any edit, an editor's
 * save-as-new-file, a copy over it or a restore changes one of them. Nothing is written into the output itself, so
 * a rejects CSV stays a file the user can feed back as it is. A missing or unreadable record means "not known to
 * be memberctl's": the file is refused, which is the safe side.
 */
import { type BigIntStats } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

interface WrittenRecord {
  ino: string;
  size: string;
  mtimeNs: string;
  writtenAt: string;
}

export function recordPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.memberctl`);
}

function fingerprint(info: BigIntStats): Omit<WrittenRecord, 'writtenAt'> {
  return { ino: String(info.ino), size: String(info.size), mtimeNs: String(info.mtimeNs) };
}

/**
 * Notes that memberctl has just put `path` in place. A record that cannot be written only means the next run
 * refuses to replace the file without --force: never a reason to fail this run.
 */
export async function recordWritten(path: string): Promise<void> {
  try {
    const record: WrittenRecord = { ...fingerprint(await stat(path, { bigint: true })), writtenAt: nowIso() };
    await writeFile(recordPathOf(path), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch {
    await unlink(recordPathOf(path)).catch(() => undefined);
  }
}

/** Why an existing file at `path` is not memberctl's own (undefined: it is, unchanged since memberctl wrote it). */
export async function notOwnBecause(path: string): Promise<'no-record' | 'changed' | undefined> {
  let record: WrittenRecord;
  try {
    record = JSON.parse(await readFile(recordPathOf(path), 'utf8')) as WrittenRecord;
  } catch {
    return 'no-record';
  }
  let now: Omit<WrittenRecord, 'writtenAt'>;
  try {
    now = fingerprint(await stat(path, { bigint: true }));
  } catch {
    return undefined; // gone meanwhile: nothing to lose
  }
  const same = now.ino === record.ino && now.size === record.size && now.mtimeNs === record.mtimeNs;
  return same ? undefined : 'changed';
}

function nowIso(): string {
  return new Date().toISOString();
}
