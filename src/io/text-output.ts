/**
 * A small text output (map init's mapping file) written so that nothing is destroyed: never the input itself
 * (same device and inode, through a hard link or a symlink too), never through a symlink, an existing file only
 * with `force`, and by temp file + rename, so a crash never leaves half a file.
 * (Kept in this one place for the shared output-file module of issue 15 to replace.)
 */
import { lstat, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';

export interface TextOutputOptions {
  /** Overwrite an existing regular file. */
  force?: boolean;
  /** Paths this output must never be (the input file). */
  inputs?: readonly string[];
  /** What the file is, for messages: "mapping file". */
  purpose: string;
}

export async function writeTextOutput(path: string, text: string, options: TextOutputOptions): Promise<void> {
  const refuse = (reason: string, hint: string): never => {
    throw new UsageError(`--out ${path}: ${reason}`, { code: 'output-file', hint });
  };
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink()) refuse('is a symbolic link; it is never written through', 'Give the path of a regular file.');
  if (existing && !existing.isFile()) refuse('is not a regular file', 'Give the path of a regular file.');
  for (const input of options.inputs ?? []) {
    const other = await stat(input).catch(() => undefined);
    if (existing && other && other.dev === existing.dev && other.ino === existing.ino) refuse(`is the input ${input}; writing it would destroy it`, 'Choose another --out, e.g. mapping.json.');
  }
  if (existing && !options.force) refuse('the file exists', 'Pass --force to replace it, or choose another --out.');
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write ${options.purpose} ${path}: ${code}`, { code: 'output-file', hint: 'Check that the folder exists and is writable, and that the disk has room.', cause: error });
  }
}
