/**
 * The durable side of an import, in one object for the import command: the resume journal, the
 * --changed-only sync state and the --shard filter, as pipeline hooks, plus what to do when the run ends.
 */
import { UsageError } from '../../errors.js';
import type { Shard } from '../../state/shard.js';
import { SyncState } from '../../state/sync-state.js';
import { buildHooks, type HookCounters, type HookParts } from './hooks.js';
import { openJournalSession, type JournalOptions, type JournalSession } from './journal-session.js';
import type { ImportHooks, ImportSummary } from '../import/types.js';

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
}

export interface ImportStateSession {
  hooks: ImportHooks;
  counters: HookCounters;
  journalPath?: string;
  shard?: Shard;
  /** Records an earlier run settled (--resume), 0 without. */
  resumedRecords: number;
  /**
   * Closes the journal (removed when nothing failed, unless --keep-journal) and the state. Without a summary
   * (the run threw) the journal is kept. Safe to call twice: the first call decides.
   */
  finish(summary: ImportSummary | undefined): Promise<{ journalKept: boolean }>;
}

export async function openImportState(options: ImportStateOptions, notice: (message: string) => void): Promise<ImportStateSession> {
  if (options.changedOnly && !options.statePath) {
    throw new UsageError('--changed-only needs --state FILE: the file that remembers what the server confirmed', {
      code: 'changed-only-state',
      hint: 'memberctl import members.csv --changed-only --state members.state (created on the first run).',
    });
  }
  const state = options.statePath ? SyncState.open(options.statePath, { create: true, target: options.target }) : undefined;
  let journal: JournalSession | undefined;
  try {
    journal = await openJournalSession({ ...options.journal, input: options.input, shard: options.shard, target: options.target }, notice);
  } catch (error) {
    state?.close();
    throw error;
  }
  let finished: Promise<{ journalKept: boolean }> | undefined;
  const { hooks, counters, flush } = buildHooks({
    shard: options.shard,
    journal: journal?.writer,
    resumed: journal?.resumed,
    state,
    changedOnly: options.changedOnly,
    sourceKey: options.sourceKey,
  });
  return {
    hooks,
    counters,
    journalPath: journal?.path,
    shard: options.shard,
    resumedRecords: journal?.resumed?.settled ?? 0,
    finish(summary) {
      finished ??= finishOnce(summary);
      return finished;
    },
  };

  async function finishOnce(summary: ImportSummary | undefined): Promise<{ journalKept: boolean }> {
    try {
      flush();
    } finally {
      state?.close();
    }
    if (!journal) return { journalKept: false };
    const complete = summary !== undefined && summary.failed === 0 && summary.stopReason === undefined;
    // a fresh journal this run wrote nothing to (stopped before any answer) has nothing to resume
    const empty = !journal.resumed && journal.writer.entriesWritten === 0;
    if ((complete || empty) && !journal.keep) {
      await journal.writer.remove();
      return { journalKept: false };
    }
    await journal.writer.close();
    return { journalKept: true };
  }
}
