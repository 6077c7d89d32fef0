/**
 * The import command's durability flags (--resume, --restart, --journal, --keep-journal, --no-journal,
 * --changed-only, --state, --shard): declared here so import.ts only adds them and passes them on.
 */
import type { Command } from 'commander';
import type { ImportStateOptions, ImportStateSession } from '../core/import-state/index.js';
import { parseShard } from '../state/shard.js';

export interface ImportStateFlags {
  resume?: boolean;
  restart?: boolean;
  /** --journal PATH, or false for --no-journal */
  journal?: string | false;
  keepJournal?: boolean;
  changedOnly?: boolean;
  state?: string;
  shard?: string;
}

export function addImportStateOptions(command: Command): Command {
  return command
    .option('--resume', 'send only the records the journal of an interrupted run lacks; the summary covers both runs')
    .option('--restart', 'discard the journal of an earlier, unfinished run and import everything again')
    .option('--journal <path>', 'keep the resume journal here (default: beside the input, FILE.memberctl-journal)')
    .option('--keep-journal', 'keep the journal after a run where nothing failed (it is removed by default)')
    .option('--no-journal', 'keep no journal (an interrupted run then cannot be resumed)')
    .option('--changed-only', 'send only members new or changed since the last confirmed import (needs --state)')
    .option('--state <file>', 'SQLite file remembering a hash of each member\'s last confirmed item (created if missing)')
    .option('--shard <i/n>', 'only members whose memberId hashes to shard i of n (0-based: 0/3, 1/3, 2/3)');
}

export const IMPORT_STATE_EXAMPLES = `
  $ memberctl import members.csv --resume                            after a crash: send only what was not confirmed
  $ memberctl import crm.csv --changed-only --state crm.state         nightly sync: send new and changed members only
  $ memberctl import members.csv --shard "$JOB_COMPLETION_INDEX/4"    one of 4 processes splitting a file by memberId`;

export function importStateOptionsFrom(file: string, flags: ImportStateFlags): Omit<ImportStateOptions, 'target'> {
  return {
    input: file,
    shard: flags.shard === undefined ? undefined : parseShard(flags.shard),
    journal: {
      disabled: flags.journal === false,
      path: typeof flags.journal === 'string' ? flags.journal : undefined,
      resume: flags.resume,
      restart: flags.restart,
      keep: flags.keepJournal,
    },
    statePath: flags.state,
    changedOnly: flags.changedOnly,
  };
}

/** Fields the --json object gains (only those that apply, so a plain import's object is unchanged). */
export function importStateJson(session: ImportStateSession, journalKept: boolean): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (session.resumedRecords > 0) extra.resumedRecords = session.resumedRecords;
  if (session.shard) extra.shard = session.shard;
  if (session.shard) extra.otherShards = session.counters.otherShards;
  if (session.journalPath && journalKept) extra.journal = session.journalPath; // where --resume will look
  return extra;
}

/** Lines for the human summary: what an earlier run settled, other shards, where the journal is and why. */
export function importStateNotes(session: ImportStateSession, journalKept: boolean, failed: number): string[] {
  const notes: string[] = [];
  const n = (count: number) => count.toLocaleString('en-US');
  if (session.resumedRecords > 0) notes.push(`resumed: ${n(session.resumedRecords)} records were settled by an earlier run (counted above, not sent again)`);
  if (session.shard) notes.push(`shard ${session.shard.index}/${session.shard.count}: ${n(session.counters.otherShards)} records belong to other shards (not counted above)`);
  if (session.journalPath && journalKept) {
    notes.push(failed > 0 ? `journal kept: ${session.journalPath} — run again with --resume to send only the ${n(failed)} records not confirmed` : `journal kept: ${session.journalPath}`);
  }
  return notes;
}
