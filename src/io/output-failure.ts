/**
 * A file memberctl writes ran out of room: a full disk (ENOSPC, SQLITE_FULL), a quota (EDQUOT), a file-size limit
 * (EFBIG: `ulimit -f`; Node ignores SIGXFSZ, so the write fails instead of killing the process), a file system
 * gone read-only or failing (EROFS, EIO). The world did it, not a bug: the run stops cleanly, names the file and
 * the cause, and accounts for every record (exit 4: not everything done, safe to run again with --resume).
 */
import { MemberctlError } from '../errors.js';

const RESOURCE_CODES = new Set(['ENOSPC', 'EFBIG', 'EDQUOT', 'EROFS', 'EIO', 'SQLITE_FULL', 'SQLITE_IOERR']);

export type OutputKind = 'rejects' | 'journal' | 'state' | 'report' | 'sandbox data';

/** The errno-like code of a resource failure in `error` (or in its cause, or its details), else undefined. */
export function resourceCause(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const detail = ((e as { details?: { cause?: unknown } }).details ?? {}).cause;
    for (const candidate of [code, detail]) {
      if (typeof candidate === 'string' && (RESOURCE_CODES.has(candidate) || candidate.startsWith('SQLITE_IOERR')))
        return candidate;
    }
  }
  return undefined;
}

const WHY: Record<string, string> = {
  ENOSPC: 'the disk is full',
  SQLITE_FULL: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file reached the size limit (ulimit -f or the file system)',
  EROFS: 'the file system is read-only',
  LOCK_LOST: 'another memberctl took over its lock',
};

export class OutputFailure extends MemberctlError {
  constructor(
    readonly kind: OutputKind,
    readonly file: string,
    readonly errno: string,
    hint?: string,
  ) {
    const cause = errno;
    const why = WHY[cause] ?? 'the file system failed';
    const incomplete = kind === 'rejects' ? ': the rejects file is incomplete, so it was not written' : '';
    super('output-failed', `writing the ${kind} file ${file} failed: ${cause}, ${why}${incomplete}`, 'not-confirmed', {
      hint: hint ?? 'Free some space (or raise the limit), then run again with --resume.',
      details: { kind, file, cause },
    });
    this.short = `the ${kind} file could not be written (${cause})`;
  }

  /** For the reason of each record not sent: the file and cause are said once, in the error. */
  readonly short: string;
}
