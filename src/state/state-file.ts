/**
 * The state file on disk, before SQLite opens it for a run: a new state appears whole (its tables made in a file
 * of its own, then linked into place), and an existing one must be a regular file that is not empty. So a state
 * file that exists always has its tables, and an empty one was damaged, never "being created".
 */
import type Database from 'better-sqlite3';
import { closeSync, existsSync, linkSync, openSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { InputError } from '../errors.js';
import { lazy } from '../lazy.js';
import { createSchema } from './state-schema.js';
import { emptyStateError, fileKind, notRegularFileError, stateError } from './state-errors.js';

/** better-sqlite3, loaded on first use (lazy.ts): commands that keep no state do not pay for it. */
export const sqlite = lazy<typeof Database>('better-sqlite3');

/**
 * Makes `path` ready for SQLite: created when missing and `create` (else refused: no state file), or checked to be
 * a regular, non-empty file. True when this call created it.
 */
export function prepareStateFile(path: string, create: boolean): boolean {
  if (existsSync(path)) {
    refuseNonRegularFile(path);
    refuseEmptyFile(path);
    return false;
  }
  if (!create) {
    throw new InputError(`no state file at ${path}`, {
      code: 'state-file',
      file: path,
      hint: 'Check the --state path; an import with --changed-only --state creates it.',
    });
  }
  return createStateFile(path);
}

/**
 * A new state appears whole: its tables are made in a file of its own, which is then linked to `path` (link fails
 * when another process, a shard, created it meanwhile: that one is used). So a state file that exists always has
 * its tables, and one that is empty (0 bytes, or a database without tables) was damaged after it was made
 * (truncated, overwritten), never "being created": it is refused, not taken for a new state that sends every
 * member and leaves the shrink guard nothing to compare with. True when this call created it.
 */
function createStateFile(path: string): boolean {
  const fresh = `${path}.new-${process.pid}`;
  try {
    closeSync(openSync(fresh, 'w', 0o600)); // SQLite gives its -wal and -shm files the same mode
    const db = new (sqlite())(fresh, { fileMustExist: true });
    try {
      db.pragma('journal_mode = WAL');
      createSchema(db);
    } finally {
      db.close(); // checkpoints: the tables are in the file itself, the -wal is removed
    }
    placeFile(fresh, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw stateError(path, error);
  } finally {
    for (const leftover of [fresh, `${fresh}-wal`, `${fresh}-shm`]) {
      try {
        unlinkSync(leftover);
      } catch {
        // not there
      }
    }
  }
}

/** Links `fresh` to `path` (EEXIST when taken); where links are not supported, a rename does, less atomically. */
function placeFile(fresh: string, path: string): void {
  try {
    linkSync(fresh, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    if (existsSync(path)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
    renameSync(fresh, path);
  }
}

/** A FIFO, a device or a directory is no state, damaged or not: named as what it is, and never moved aside. */
function refuseNonRegularFile(path: string): void {
  const stats = statSync(path);
  if (!stats.isFile()) throw notRegularFileError(path, fileKind(stats));
}

/** A 0-byte state (with no -wal that could hold its pages) is damaged: see createStateFile. */
function refuseEmptyFile(path: string): void {
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  if (size(path) === 0 && size(`${path}-wal`) === 0) throw emptyStateError(path);
}
