/**
 * Every file memberctl writes for the user (rejects, report, validate --output, template --out) goes through
 * here, so that no output ever destroys the input or another file:
 * - a path that is an input (the same device and inode: the file itself, a hard link or a symlink to it), or that
 *   two outputs share, is refused before anything is read (checkOutputPaths);
 * - a path that is a symlink to a file, or a dangling one, is refused: memberctl never writes through a link;
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
import { fstatSync, type Stats } from 'node:fs';
import { link, lstat, open, readdir, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';
import { cannotWrite, fileExists } from './output-errors.js';
import { notOwnBecause, recordPathOf, recordWritten } from './output-record.js';
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

/** One output the command will write: `flag` names it in errors (e.g. "--rejects"). */
export interface OutputPath {
  flag: string;
  path: string;
  /** Rewritten by every run: an existing file must be memberctl's own, unchanged (else --force). */
  ownOnly?: boolean;
}

/**
 * Refuses, before the input is read, an output that is the input ('-': whatever standard input is), an output
 * that another output also names, a symlinked output, and (without `force`) an `ownOnly` output whose file is not
 * the one memberctl last wrote there.
 */
export async function checkOutputPaths(
  inputs: readonly string[],
  outputs: readonly (OutputPath | undefined)[],
  options: { force?: boolean } = {},
): Promise<void> {
  const seen: { flag: string; path: string; key: string }[] = [];
  for (const input of inputs) {
    const info = await statOrUndefined(input);
    if (info?.isFile()) seen.push({ flag: 'the input', path: input, key: `${info.dev}:${info.ino}` });
  }
  for (const output of outputs) {
    if (!output) continue;
    // '-' is standard input where a command reads; as an output it would quietly be a file named "-" in this folder
    if (output.path === '-')
      throw new UsageError(`${output.flag} -: outputs are files, and this would write one named "-"`, {
        code: 'output-dash',
        hint: `Give ${output.flag} a file name${output.flag === '--output' ? ' (/dev/stdout writes to standard output)' : ''}; a file really named "-" is ./-.`,
      });
    const info = await inspectTarget(output.path, output.flag);
    if (info && !info.isFile()) continue; // /dev/null may be named by every output
    // a file not there yet is known by its real folder and name: two outputs may still name the same new file
    const key = info
      ? `${info.dev}:${info.ino}`
      : join(await realpath(dirname(output.path)).catch(() => resolve(dirname(output.path))), basename(output.path));
    const same = seen.find((other) => other.key === key);
    if (same) {
      const what =
        same.flag === 'the input' ? `is the input ${same.path}` : `is the same file as ${same.flag} ${same.path}`;
      throw new UsageError(
        `${output.flag} ${output.path} ${what}${output.path === same.path ? '' : ' (a link to it)'}: writing it would destroy that file`,
        {
          code: 'output-is-input',
          hint: `Give ${output.flag} a file of its own, e.g. ${suggestion(output.flag, output.path)}.`,
        },
      );
    }
    seen.push({ ...output, key });
    if (info && output.ownOnly && !options.force) await refuseUnlessOwn(output.flag, output.path);
  }
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

/** An existing output rewritten by every run is replaced only when memberctl wrote it and no one changed it since. */
async function refuseUnlessOwn(label: string, path: string): Promise<void> {
  const why = await notOwnBecause(path);
  if (why === undefined) return;
  const what =
    why === 'changed'
      ? 'has changed since memberctl wrote it'
      : `exists, and memberctl did not write it (no record ${basename(recordPathOf(path))} beside it)`;
  throw new UsageError(`${label} ${path} ${what}: it is not replaced`, {
    code: 'output-exists',
    hint: 'Move it aside or give another file name, or pass --force to replace it.',
  });
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

/**
 * What is at an output path: undefined when nothing, the stat of a file, a device or a pipe. A symlink to a
 * regular file (or to nothing) is refused; one to a device or a pipe (/dev/stdout) is followed.
 */
async function inspectTarget(path: string, what: string): Promise<Stats | undefined> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch {
    return undefined;
  }
  if (info.isSymbolicLink()) {
    const target = await statOrUndefined(path);
    if (!target || target.isFile() || target.isDirectory()) {
      throw new UsageError(`${what} ${path} is a symbolic link: memberctl never writes through one`, {
        code: 'output-symlink',
        hint: 'Give the path of the file itself, or remove the link first.',
      });
    }
    info = target;
  }
  if (info.isDirectory())
    throw new UsageError(`${what} ${path} is a folder`, { code: 'output-file', hint: 'Give a file name inside it.' });
  return info;
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return path === '-' ? fstatSync(0) : await stat(path);
  } catch {
    return undefined;
  }
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

/** A name beside `path` for what `flag` writes: --output's items are NDJSON and --report is JSON, whatever the input is. */
function suggestion(flag: string, path: string): string {
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  if (flag === '--output') return `${stem}.items.ndjson`;
  if (flag === '--report') return `${stem}.report.json`;
  if (flag === '--rejects') return dot > 0 ? `${stem}.rejects${base.slice(dot)}` : `${base}.rejects.ndjson`;
  return dot > 0 ? `${stem}.${flag.replace(/^-+/, '')}${base.slice(dot)}` : `${base}.out`;
}
