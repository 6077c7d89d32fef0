/**
 * Where an output may be written, checked before anything is read or written (the rules are at the top of
 * output-file.ts, which writes the file): an output that is an input or another output, a symlink, a folder, or
 * an existing file that is not memberctl's own.
 */
import { fstatSync, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { notOwnBecause, recordPathOf } from './output-record.js';

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

/** An existing output rewritten by every run is replaced only when memberctl wrote it and no one changed it since. */
export async function refuseUnlessOwn(label: string, path: string): Promise<void> {
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

/**
 * What is at an output path: undefined when nothing, the stat of a file, a device or a pipe. A symlink to a
 * regular file (or to nothing) is refused; one to a device or a pipe (/dev/stdout) is followed.
 */
export async function inspectTarget(path: string, what: string): Promise<Stats | undefined> {
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
