/**
 * Deciding what to do with the resume journal before an import starts: where it lives, whether one is already
 * there, whether it belongs to this input, and what an earlier run already settled.
 *
 * Decisions (where the issue is silent): reading standard input, a pipe or a device keeps no journal (nothing
 * binds it to a content, and it can be read only once), so --resume / --journal / --keep-journal with it are
 * usage errors; --resume with no journal starts from the first record with a notice (so a cron job can always
 * pass --resume); a journal whose header never reached the disk (the process died before anything was
 * confirmed) counts as no journal.
 */
import { rm, stat } from 'node:fs/promises';
import { UsageError, InputError, type MemberctlError } from '../../../errors.js';
import { fingerprintInput } from '../../../state/input-fingerprint.js';
import { JOURNAL_VERSION, type JournalHeader } from '../../../state/journal-format.js';
import { JournalCorruptError, JournalWriter, readJournal } from '../../../state/journal.js';
import { ResumeIndex } from '../../../state/resume-index.js';
import { shardLabel, type Shard } from '../../../state/shard.js';
import { refuseOtherTarget } from '../../../state/target-binding.js';
import { acquireLock, type HeldLock } from '../../../state/lock.js';

export interface JournalOptions {
  /** The input path, '-' for standard input. */
  input: string;
  /** --no-journal */
  disabled?: boolean;
  /** --journal PATH */
  path?: string;
  resume?: boolean;
  restart?: boolean;
  keep?: boolean;
  shard?: Shard;
  /** This run's target: a journal written against another one is refused. */
  target: string;
}

export interface JournalSession {
  path: string;
  writer: JournalWriter;
  /** What earlier runs settled (with --resume and a journal). */
  resumed?: ResumeIndex;
  keep: boolean;
  lock: HeldLock;
}

export function defaultJournalPath(input: string, shard?: Shard): string {
  return shard ? `${input}.${shardLabel(shard)}.memberctl-journal` : `${input}.memberctl-journal`;
}

/** Opens the journal for this run, or returns undefined when there is none (stdin, --no-journal). */
export async function openJournalSession(
  options: JournalOptions,
  notice: (message: string) => void,
  stop?: AbortSignal,
): Promise<JournalSession | undefined> {
  if (options.resume && options.restart)
    throw new UsageError('--resume and --restart exclude each other', {
      code: 'journal-flags',
      hint: '--resume sends what the journal lacks; --restart discards it and starts over.',
    });
  const stream = options.input === '-' ? 'standard input' : await readOnce(options.input);
  if (stream) {
    const flag = options.resume ? '--resume' : options.path ? '--journal' : options.keep ? '--keep-journal' : undefined;
    if (flag)
      throw new UsageError(`${flag} needs a file: ${stream} cannot be resumed`, {
        code: 'journal-stdin',
        hint: 'Save the input to a file and import the file; its journal then makes --resume possible.',
      });
    if (!options.disabled)
      notice(
        `reading ${stream}: no journal is kept, so an interrupted import cannot be resumed (import a file for --resume)`,
      );
    return undefined;
  }
  if (options.disabled) {
    if (options.resume || options.path || options.keep)
      throw new UsageError('--no-journal excludes --resume, --journal and --keep-journal', { code: 'journal-flags' });
    // --restart --no-journal: the old journal goes too, or a later --resume would apply it to this run's server
    if (options.restart) await discard(defaultJournalPath(options.input, options.shard), notice, stop);
    return undefined;
  }
  const path = options.path ?? defaultJournalPath(options.input, options.shard);
  // one run at a time on a journal: taken before it is read, released by the session's owner when the run ends
  const lock = await acquireLock(path, 'journal', undefined, { notice, stop }).catch((error: MemberctlError) =>
    error.code === 'lock-failed' ? cannotWrite(path, error.cause) : Promise.reject(error),
  );
  try {
    return { ...(await openLocked(path, options, notice)), lock };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function openLocked(
  path: string,
  options: JournalOptions,
  notice: (message: string) => void,
): Promise<Omit<JournalSession, 'lock'>> {
  // --restart discards the journal unread: a damaged one is exactly what it is for
  const existing = options.restart ? undefined : await readJournalOrExplain(path);
  if (options.restart) await rm(path, { force: true });
  if (existing?.header && !options.restart) {
    if (!options.resume) {
      throw new UsageError(
        `a journal of an earlier import of ${options.input} exists: ${path} (${describe(ResumeIndex.fromEntries(existing.entries))})`,
        {
          code: 'journal-exists',
          hint: 'Use --resume to send only what it lacks, or --restart to discard it and import everything again.',
        },
      );
    }
    const { header } = existing;
    if (header.v !== JOURNAL_VERSION) {
      throw new InputError(
        `journal ${path} has format version ${header.v}; this memberctl reads version ${JOURNAL_VERSION}`,
        {
          code: 'journal-version',
          file: path,
          hint: 'Resume with the memberctl version that wrote it, or use --restart.',
        },
      );
    }
    const fingerprint = await fingerprintOf(options.input);
    const sameFile = header.input.size === fingerprint.size && header.input.sha256 === fingerprint.sha256;
    if (!sameFile) {
      throw new UsageError(
        `journal ${path} belongs to another file: it was written for ${header.input.path} (${header.input.size} bytes), ${options.input} has ${fingerprint.size} bytes${header.input.size === fingerprint.size ? ' and other content' : ''}`,
        {
          code: 'journal-mismatch',
          hint: 'Resume with the very file the interrupted import read, or use --restart to import this one from the start.',
        },
      );
    }
    if (!sameShard(header.shard, options.shard)) {
      throw new UsageError(
        `journal ${path} was written by ${header.shard ? `--shard ${header.shard.index}/${header.shard.count}` : 'an import without --shard'}`,
        {
          code: 'journal-mismatch',
          hint: 'Resume with the same --shard as the interrupted import, or use --restart.',
        },
      );
    }
    // (a journal from before targets were recorded has none: it is taken as this run's)
    if (header.target !== undefined) refuseOtherTarget('journal', path, header.target, options.target);
    const resumed = ResumeIndex.fromEntries(existing.entries);
    const writer = await JournalWriter.reopen(path, existing.validBytes, resumed.runs + 1).catch((error) =>
      cannotWrite(path, error),
    );
    notice(`resuming from ${path}: ${describe(resumed)}; sending the rest`);
    return { path, writer, resumed, keep: Boolean(options.keep) };
  }
  if (options.resume) notice(`no journal at ${path}: nothing to resume, importing from the first record`);
  if (existing) await rm(path, { force: true });
  // The input's hash before anything is sent, not alongside: sharing the one busy thread with the import it took
  // longer, and no confirmation can be journaled before the header that holds it (docs/performance.md).
  const header: JournalHeader = {
    memberctl: 'journal',
    v: JOURNAL_VERSION,
    input: await fingerprintOf(options.input),
    shard: options.shard ?? null,
    target: options.target,
    createdAt: new Date().toISOString(),
  };
  const writer = await JournalWriter.create(path, header).catch((error) => cannotWrite(path, error));
  return { path, writer, keep: Boolean(options.keep) };
}

/**
 * A pipe or a device (`import <(zcat export.csv.gz)`, /dev/stdin) can be read only once: hashing it for the
 * journal's header would consume the very bytes the import is about to read. It is treated as standard input.
 */
async function readOnce(input: string): Promise<string | undefined> {
  try {
    const info = await stat(input);
    if (info.isFIFO() || info.isSocket()) return `${input} (a pipe)`;
    if (info.isCharacterDevice()) return `${input} (a device)`;
  } catch {
    // missing or unreadable: reading the input says so, with its own hint
  }
  return undefined;
}

async function discard(path: string, notice: (message: string) => void, stop?: AbortSignal): Promise<void> {
  const lock = await acquireLock(path, 'journal', undefined, { notice, stop });
  try {
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    ) {
      await rm(path, { force: true });
      notice(`--restart: removed the journal of an earlier run, ${path}`);
    }
  } finally {
    await lock.release();
  }
}

function describe(index: ResumeIndex): string {
  const { imported, updated, skipped, rejected } = index.counts;
  return `${index.settled} records settled by ${index.runs} earlier run${index.runs === 1 ? '' : 's'} (${imported} imported, ${updated} updated, ${skipped} skipped, ${rejected} rejected)`;
}

function sameShard(a: Shard | null, b: Shard | undefined): boolean {
  return a === null ? b === undefined : b !== undefined && a.index === b.index && a.count === b.count;
}

async function readJournalOrExplain(path: string) {
  try {
    return await readJournal(path);
  } catch (error) {
    if (error instanceof JournalCorruptError) {
      throw new InputError(error.message, {
        code: 'journal-corrupt',
        file: path,
        hint: 'It was not written by memberctl as it is; use --restart to discard it and import everything again.',
      });
    }
    throw new InputError(
      `cannot read journal ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { code: 'journal', file: path, cause: error },
    );
  }
}

async function fingerprintOf(input: string) {
  try {
    return await fingerprintInput(input);
  } catch (error) {
    throw new InputError(`cannot read ${input}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      code: 'input',
      file: input,
      cause: error,
    });
  }
}

function cannotWrite(path: string, error: unknown): never {
  throw new InputError(
    `cannot write journal ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    {
      code: 'journal',
      file: path,
      hint: 'Put it elsewhere with --journal PATH, or import without one with --no-journal (an interrupted import then cannot be resumed).',
      cause: error,
    },
  );
}
