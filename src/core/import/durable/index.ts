/**
 * The durable side of an import, in one object for the import command: the resume journal, the
 * --changed-only sync state and the --shard filter, as pipeline hooks, plus what to do when the run ends.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../../../errors.js';
import { SyncState } from '../../../state/sync-state.js';
import { acquireStateLock } from '../../../state/state-lock.js';
import type { HeldLock } from '../../../state/lock.js';
import type { Shard } from '../../../state/shard.js';
import { OutputFailure, resourceCause, type OutputKind } from '../../../io/output-failure.js';
import { buildHooks, type HookCounters, type HookParts } from './hooks.js';
import { checkShrink, DEFAULT_MAX_SHRINK } from './shrink-guard.js';
import { openJournalSession, type JournalOptions, type JournalSession } from './journal-session.js';
import type { ImportHooks, ImportSummary } from '../types.js';

export { defaultJournalPath } from './journal-session.js';

export interface ImportStateOptions {
  input: string;
  shard?: Shard;
  journal: Omit<JournalOptions, 'input' | 'shard' | 'target'>;
  /** --state FILE (with --changed-only: skip unchanged members; without: only record what the server confirmed). */
  statePath?: string;
  changedOnly?: boolean;
  /** CSV input: the stream's sourceKey, for --changed-only's comparison before mapping. */
  sourceKey?: HookParts['sourceKey'];
  /** The run's target (state/target-binding.ts): the journal and the state must have been made against it. */
  target: string;
  /** --require-state: a missing state file is an error (exit 2) instead of a new state that sends every member. */
  requireState?: boolean;
  /** The shrink guard (shrink-guard.ts): this input's row count (at most), counted before the run. */
  inputRows?: number;
  maxShrink?: number;
  allowShrink?: boolean;
  /** --refresh-after DAYS: send members whose last confirmation is older (spread over nights). */
  refreshAfterDays?: number;
  /** --limit: the input is not read whole, so it says nothing about absent members or the row count. */
  limited?: boolean;
  /** Asked at the end: did the input end mid-record (no line break)? Such a run is no reference for the next. */
  endedSuspect?: () => boolean;
  /** Ctrl-C / SIGTERM: ends a wait for another host's lock (its lease: state/lease.ts). */
  stop?: AbortSignal;
}

export interface ImportStateSession {
  hooks: ImportHooks;
  counters: HookCounters;
  journalPath?: string;
  shard?: Shard;
  /** Records an earlier run settled (--resume), 0 without. */
  resumedRecords: number;
  /** The earlier runs that settled them (the journal's count, as the "resuming from" notice says), 0 without. */
  resumedRuns: number;
  /**
   * Closes the journal (removed when nothing failed, unless --keep-journal) and the state. Without a summary
   * (the run threw) the journal is kept. Safe to call twice: the first call decides.
   */
  finish(summary: ImportSummary | undefined): Promise<FinishedState>;
  /** Calls `onLost` if another run takes over this run's journal or state lock (state/lock.ts). */
  watchLocks(onLost: (kind: 'journal' | 'state', file: string) => void): void;
}

export interface FinishedState {
  journalKept: boolean;
  /** Members in the state this run's input did not hold; set only after a run that read its input whole. */
  absentFromInput?: number;
  /** A full disk or a size limit on the state's or the journal's last writes (the run then counts as stopped). */
  outputError?: OutputFailure;
}

export async function openImportState(
  options: ImportStateOptions,
  notice: (message: string) => void,
  warn: (message: string) => void = notice,
): Promise<ImportStateSession> {
  if (options.changedOnly && !options.statePath) {
    throw new UsageError('--changed-only needs --state FILE: the file that remembers what the server confirmed', {
      code: 'changed-only-state',
      hint: 'memberctl import members.csv --changed-only --state members.state (created on the first run).',
    });
  }
  // one run at a time on a state, or shards of one count together (state-lock.ts)
  const lockOptions = { notice, stop: options.stop };
  const stateLock = options.statePath
    ? await acquireStateLock(options.statePath, options.shard, lockOptions)
    : undefined;
  let state: SyncState | undefined;
  let journal: JournalSession | undefined;
  try {
    state = options.statePath ? openState(options.statePath, options, warn) : undefined;
    journal = await openJournalSession(
      { ...options.journal, input: options.input, shard: options.shard, target: options.target },
      notice,
      options.stop,
    );
  } catch (error) {
    closeState(state); // the error that stopped the opening is the one to tell
    await stateLock?.release();
    throw error;
  }
  const { hooks, counters, flush } = buildHooks({
    shard: options.shard,
    journal: journal?.writer,
    resumed: journal?.resumed,
    state,
    changedOnly: options.changedOnly,
    sourceKey: options.sourceKey,
    refreshAfterDays: options.refreshAfterDays,
  });
  const opened: Opened = { options, state, stateLock, journal, otherShards: () => counters.otherShards, flush };
  let finished: Promise<FinishedState> | undefined;
  return {
    hooks,
    counters,
    journalPath: journal?.path,
    shard: options.shard,
    resumedRecords: journal?.resumed?.settled ?? 0,
    resumedRuns: journal?.resumed?.runs ?? 0,
    finish(summary) {
      finished ??= finishOnce(opened, summary);
      return finished;
    },
    watchLocks(onLost) {
      const watch = (lock: HeldLock | undefined, kind: 'journal' | 'state', file: string | undefined) => {
        if (lock && file) lock.lost.addEventListener('abort', () => onLost(kind, file), { once: true });
      };
      watch(stateLock, 'state', options.statePath);
      watch(journal?.lock, 'journal', journal?.path);
    },
  };
}

/** What openImportState opened, for the finish. */
interface Opened {
  options: ImportStateOptions;
  state?: SyncState;
  stateLock?: HeldLock;
  journal?: JournalSession;
  otherShards(): number;
  flush(): void;
}

async function finishOnce(opened: Opened, summary: ImportSummary | undefined): Promise<FinishedState> {
  const { options, state, stateLock, journal } = opened;
  let absentFromInput: number | undefined;
  let outputError: OutputFailure | undefined;
  // a full disk on these last writes loses only what they add (learned hashes, the row count, the journal's
  // tail): the run stops there like on any output (output-guard.ts), the journal kept, so --resume finishes it
  const failed = (kind: OutputKind, file: string | undefined, error: unknown) => {
    const cause = resourceCause(error);
    if (cause === undefined || file === undefined) throw error;
    outputError ??= new OutputFailure(kind, file, cause);
  };
  try {
    opened.flush();
    // only a run that read its input whole, to a clean end, knows who is absent and how many rows a good export has
    const whole =
      summary !== undefined &&
      !summary.inputError &&
      !summary.stopReason &&
      !options.limited &&
      !options.endedSuspect?.();
    if (state && whole) absentFromInput = state.finishWholeRun(summary.rows + opened.otherShards());
  } catch (error) {
    failed('state', options.statePath, error);
  } finally {
    const closeError = closeState(state);
    if (closeError) outputError ??= new OutputFailure('state', options.statePath!, closeError.cause);
    await stateLock?.release();
  }
  try {
    const kept = await finishJournal(journal, summary && withOutputError(summary, outputError)).catch(
      (error: unknown) => (failed('journal', journal?.path, error), true),
    );
    const finished: FinishedState = { journalKept: kept };
    if (absentFromInput !== undefined) finished.absentFromInput = absentFromInput;
    if (outputError) finished.outputError = outputError;
    return finished;
  } finally {
    await journal?.lock.release();
  }
}

/**
 * Closes the state, returning (never throwing) what went wrong: every confirmation was committed before, so a
 * failing close (an I/O error at the final checkpoint) loses nothing, and must not cost the run its summary, its
 * lock or its journal. It counts as the state's output failing (exit 4, the journal kept), like a full disk.
 */
function closeState(state: SyncState | undefined): { cause: string } | undefined {
  try {
    state?.close();
    return undefined;
  } catch (error) {
    return {
      cause:
        resourceCause(error) ?? (error as { details?: { cause?: string } }).details?.cause ?? (error as Error).message,
    };
  }
}

/** The summary of a run an output failed in at the end: stopped for it (unless it had stopped already). */
export function withOutputError(summary: ImportSummary, outputError: OutputFailure | undefined): ImportSummary {
  if (!outputError) return summary;
  return { ...summary, stopReason: summary.stopReason ?? 'output', outputError: summary.outputError ?? outputError };
}

async function finishJournal(
  journal: JournalSession | undefined,
  summary: ImportSummary | undefined,
): Promise<boolean> {
  if (!journal) return false;
  const complete = summary !== undefined && summary.failed === 0 && summary.stopReason === undefined;
  // a fresh journal this run wrote nothing to (stopped before any answer) has nothing to resume
  const empty = !journal.resumed && journal.writer.entriesWritten === 0;
  if ((complete || empty) && !journal.keep) {
    await journal.writer.remove();
    return false;
  }
  await journal.writer.close();
  return true;
}

/**
 * A missing state is announced (every member will be sent), or refused with --require-state (for cron); then the
 * shrink guard compares this input with the last good run's (shrink-guard.ts).
 */
function openState(path: string, options: ImportStateOptions, warn: (message: string) => void): SyncState {
  if (options.requireState && !existsSync(path)) {
    throw new UsageError(`no state file at ${path} (--require-state): nothing was sent`, {
      code: 'state-missing',
      hint: `Check the --state path. On a job's first night, or if the state is really gone: \`memberctl state init --state ${path}\` creates an empty state, and the next run sends every member once.`,
    });
  }
  const state = SyncState.open(path, { create: true, target: options.target });
  if (state.created) warn(`new state ${path}: every member will be sent`);
  try {
    const ahead = state.nightly.writtenInTheFuture();
    if (ahead)
      warn(
        `state ${path} was last written at ${ahead}, ahead of this machine's clock (now ${new Date().toISOString()}): a clock was wrong then or is now; check it (timedatectl). Members confirmed "in the future" count as due for --refresh-after`,
      );
    const lastGood = state.nightly.lastGoodRun();
    const { inputRows, allowShrink = false } = options;
    checkShrink({
      rows: inputRows,
      lastGoodRows: lastGood?.rows,
      maxShrink: options.maxShrink ?? DEFAULT_MAX_SHRINK,
      allowShrink,
      input: options.input,
      state: path,
    });
    if (lastGood && inputRows === undefined && !allowShrink)
      warn(
        `the shrink guard cannot count ${options.input} before the run (standard input, a pipe, a JSON array or a workbook): it is not checked`,
      );
  } catch (error) {
    state.close();
    throw error;
  }
  return state;
}
