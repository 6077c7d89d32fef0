/**
 * What goes wrong with a state file, as errors a person can act on. A damaged file (truncated, overwritten,
 * a disk fault) is not a permissions problem: the way out is `state reset`, which moves the damaged file aside
 * and starts a new state (every member is sent once more: the import is an upsert, so that is safe).
 */
import type { Stats } from 'node:fs';
import { InputError } from '../errors.js';

const DAMAGE_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_CORRUPT_SEQUENCE',
  'SQLITE_CORRUPT_INDEX',
  'SQLITE_NOTADB',
]);

/** True for SQLite's "the file is not what it should be" errors (damaged, or not a database at all). */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DAMAGE_CODES.has(code);
}

export function damagedStateError(path: string, error: unknown): InputError {
  const code = (error as { code?: string }).code ?? 'SQLITE_CORRUPT';
  return new InputError(`state file ${path} is damaged (${code}: ${(error as Error).message})`, {
    code: 'state-damaged',
    file: path,
    hint: `Run \`memberctl state reset --state ${path}\`: it moves the damaged file aside and starts a new state, so the next import sends every member once (safe: the import is an upsert).`,
    cause: error,
  });
}

/** A state file that exists but holds nothing (0 bytes, or no tables): damaged, with the same way out. */
export function emptyStateError(path: string): InputError {
  return new InputError(`state file ${path} is damaged: it is empty (a state always holds its tables)`, {
    code: 'state-damaged',
    file: path,
    hint: `Check the --state path. If it is the right file, run \`memberctl state reset --state ${path}\`: it moves the empty file aside and starts a new state, so the next import sends every member once (safe: the import is an upsert).`,
  });
}

/** What a path that is not a regular file is, in words. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export function notRegularFileError(path: string, kind: string): InputError {
  return new InputError(`${path} is ${kind}, not a regular file: it cannot be a memberctl state file`, {
    code: 'state-file',
    file: path,
    details: { reason: 'not-regular-file' },
    hint: 'Give --state the path of a regular file of its own (memberctl creates it on the first run); `state reset` leaves this one alone.',
  });
}

/** Set on the not-a-database error: `state reset` moves such a file aside, as its hint says. */
export const NOT_A_DATABASE = 'not-a-database';

export function stateError(path: string, error: unknown): InputError {
  if (error instanceof InputError) return error;
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  // an empty header is no database at all; a valid header over damaged pages is a damaged state
  if (code === 'SQLITE_NOTADB' || /not a database/i.test(message)) {
    return new InputError(`${path} is not a memberctl state file (not an SQLite database)`, {
      code: 'state-file',
      file: path,
      details: { reason: NOT_A_DATABASE },
      hint: `Give --state a file of its own; memberctl creates it on the first run. If it was a state file, \`memberctl state reset --state ${path}\` moves it aside and starts anew.`,
      cause: error,
    });
  }
  if (isDamage(error)) return damagedStateError(path, error);
  return new InputError(`cannot open state file ${path}: ${code ?? message}`, {
    code: 'state-file',
    file: path,
    hint: 'Check the path and its permissions.',
    cause: error,
  });
}

/**
 * Closing failed (SQLite keeps a failed final checkpoint quiet, so this is rare): every change was committed
 * before, so nothing is lost, and the WAL left behind is replayed by the next open.
 */
export function stateCloseError(path: string, error: unknown): InputError {
  const code = (error as { code?: string }).code ?? (error as Error).message;
  return new InputError(`closing state file ${path} failed: ${code}`, {
    code: 'state-close',
    file: path,
    details: { cause: code },
    hint: 'Its changes were committed before the close, so nothing is lost. Check the disk it is on.',
    cause: error,
  });
}
