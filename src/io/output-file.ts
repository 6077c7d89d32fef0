/**
 * Every file memberctl writes for the user (rejects, report, validate --output, template --out) goes through
 * here, so that no output ever destroys the input or another file:
 * - a path that is an input (the same device and inode: the file itself, a hard link or a symlink to it), or that
 *   two outputs share, is refused before anything is read (checkOutputPaths, output-paths.ts);
 * - a path that is a symlink to a file, or a dangling one, is refused: memberctl never writes through a link
 *   (inspectTarget, output-paths.ts);
 * - a regular file is written to a temp file beside it (O_EXCL, 0600), synced, and renamed into place when
 *   complete, the way rsync does, then its folder is synced so the rename itself survives a power cut: a crash
 *   leaves the old file whole and no half-written one (a stale temp file of a dead process is removed by the next
 *   run that writes the same path);
 * - a device or a pipe (/dev/null, /dev/stdout, a FIFO) cannot be replaced: it is written directly;
 * - an existing file is replaced only when no one else's work is in it (docs/safety.md#outputs): an output a person
 *   edits and keeps (map init --out, template --out: `noClobber`) never without --force; an output rewritten by
 *   every run (rejects, report, validate --output, state absent --out) only when it is the file memberctl last
 *   wrote there, unchanged since (output-record.ts), else with --force. Refused before the input is read.
 * Lines are gathered into ~64 KiB chunks so a million small writes cost a few hundred syscalls.
 */
import { link, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cannotWrite, fileExists } from './output-errors.js';
import { inspectTarget, refuseUnlessOwn } from './output-paths.js';
import { recordWritten } from './output-record.js';
import { syncDirectory } from './sync-directory.js';

const CHUNK_BYTES = 64 * 1024;
const TEMP_MARK = '.memberctl-tmp-';

export interface LineWriter {
  /** Queues one line (without its newline). Returns a promise only when the caller should wait for the disk. */
  writeLine(line: string): Promise<void> | undefined;
  /** Flushes, syncs and puts the file in place; the file is complete when this resolves. */
  close(): Promise<void>;
  /** Drops what was written: the temp file is removed and an earlier file at the path stays as it was. */
  abort(): Promise<void>;
}

export interface OutputOptions {
  /** Mode of a new file (default 0600: rejects and reports hold personal data). */
  mode?: number;
  /** A file a person edits and keeps (map init, template): refuse any existing file, unless `force`. */
  noClobber?: boolean;
  /** --force: replace an existing file even when it is not the one memberctl last wrote there, unchanged. */
  force?: boolean;
  /** Turns each chunk of text into the bytes written (a rejects CSV in the input's encoding, with its BOM); default UTF-8. */
  encode?: (text: string) => string | Buffer;
}

/** Opens an output for writing line by line (see the top of this file for what is refused and how). */
export async function openOutputFile(path: string, purpose: string, options: OutputOptions = {}): Promise<LineWriter> {
  const existing = await inspectTarget(path, `${purpose} file`);
  if (existing?.isFile() && !options.force) {
    if (options.noClobber) throw fileExists(path);
    await refuseUnlessOwn(`${purpose} file`, path);
  }
  const direct = existing !== undefined && !existing.isFile();
  let handle: FileHandle;
  let temp: string | undefined;
  try {
    if (direct) handle = await open(path, 'w');
    else {
      await removeStaleTemps(path);
      temp = join(dirname(path), `.${basename(path)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
      handle = await open(temp, 'wx', options.mode ?? 0o600);
      await handle.chmod(options.mode ?? 0o600); // the umask may have narrowed a wider mode (template: 0644)
    }
  } catch (error) {
    throw cannotWrite(path, purpose, error, 'open');
  }
  // a file that must not exist is linked into place (EEXIST if one appeared meanwhile); an output rewritten by
  // every run is recorded once in place, so that the next run knows it for its own
  const placing = { exclusive: Boolean(options.noClobber && !options.force), record: !options.noClobber };
  return lineWriter(handle, path, purpose, temp, placing, options.encode);
}

/** Writes a whole small file (a report, a template) the same safe way. */
export async function writeOutputFile(
  path: string,
  purpose: string,
  text: string,
  options: OutputOptions = {},
): Promise<void> {
  const file = await openOutputFile(path, purpose, options);
  try {
    file.writeLine(text.endsWith('\n') ? text.slice(0, -1) : text);
    await file.close();
  } catch (error) {
    await file.abort();
    throw error;
  }
}

function lineWriter(
  handle: FileHandle,
  path: string,
  purpose: string,
  temp: string | undefined,
  placing: { exclusive: boolean; record: boolean },
  encode?: (text: string) => string | Buffer,
): LineWriter {
  let failure: unknown;
  // one write at a time, in order; a caller that does not wait still has its lines written after the earlier ones
  let writing: Promise<void> = Promise.resolve();
  let pending: string[] = [];
  let pendingBytes = 0;
  let done = false;

  const flush = (): Promise<void> | undefined => {
    if (failure !== undefined) throw cannotWrite(path, purpose, failure, 'write');
    if (pending.length === 0) return undefined;
    const text = pending.join('');
    const chunk = encode ? encode(text) : text;
    pending = [];
    pendingBytes = 0;
    writing = writing.then(async () => {
      if (failure === undefined)
        await (typeof chunk === 'string' ? handle.write(chunk) : handle.write(chunk)).catch(
          (error: unknown) => void (failure ??= error),
        );
    });
    return writing.then(() => {
      if (failure !== undefined) throw cannotWrite(path, purpose, failure, 'write');
    });
  };
  const abort = async () => {
    if (done) return;
    done = true;
    await writing;
    await handle.close().catch(() => undefined);
    if (temp) await unlink(temp).catch(() => undefined);
  };

  return {
    writeLine(line) {
      pending.push(line, '\n');
      pendingBytes += line.length + 1;
      return pendingBytes >= CHUNK_BYTES ? flush() : undefined;
    },
    async close() {
      if (done) return;
      try {
        await flush();
        if (temp) await handle.sync().catch((error: unknown) => void (failure ??= error));
        if (failure !== undefined) throw cannotWrite(path, purpose, failure, 'write');
        await handle.close();
        done = true;
        if (temp) await putInPlace(temp, path, purpose, placing.exclusive);
        if (temp && placing.record) await recordWritten(path);
      } catch (error) {
        await abort();
        throw error;
      }
    },
    abort,
  };
}

async function putInPlace(temp: string, path: string, purpose: string, exclusive: boolean): Promise<void> {
  try {
    if (exclusive) {
      await link(temp, path); // fails with EEXIST instead of replacing a file that appeared meanwhile
      await unlink(temp);
    } else {
      await rename(temp, path); // replaces a symlink itself, never what it points to
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists(path);
    throw cannotWrite(path, purpose, error, 'write');
  }
  // the temp file was synced before it was closed; the new name lives in the folder, which a power cut right
  // after the rename could otherwise roll back to the old file
  await syncDirectory(dirname(path));
}

/** Temp files of this path left by a process that no longer runs (killed mid-write). */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = `.${basename(path)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return; // opening the temp file says why the folder cannot be used
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid > 0 && !isAlive(pid))
      await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}
