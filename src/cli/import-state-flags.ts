/**
 * The import command's durability flags (--resume, --restart, --journal, --keep-journal, --no-journal,
 * --changed-only, --state, --shard): declared here so import.ts only adds them and passes them on.
 */
import type { Command } from 'commander';
import type { ImportStateOptions } from '../core/import/durable/index.js';
import { parseMaxShrink } from '../core/import/durable/shrink-guard.js';
import { UsageError } from '../errors.js';
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
  requireState?: boolean;
  maxShrink?: string;
  allowShrink?: boolean;
  refreshAfter?: string;
}

export function addImportStateOptions(command: Command): Command {
  return command
    .option('--resume', 'send only the records the journal of an interrupted run lacks; the summary covers both runs')
    .option('--restart', 'discard the journal of an earlier, unfinished run and import everything again')
    .option('--journal <path>', 'keep the resume journal here (default: beside the input, FILE.memberctl-journal)')
    .option('--keep-journal', 'keep the journal after a run where nothing failed (it is removed by default)')
    .option('--no-journal', 'keep no journal (an interrupted run then cannot be resumed)')
    .option('--changed-only', 'send only members new or changed since the last confirmed import (needs --state)')
    .option(
      '--state <file>',
      "SQLite file remembering a hash of each member's last confirmed item (created if missing)",
    )
    .option('--shard <i/n>', 'only members whose memberId hashes to shard i of n (0-based: 0/3, 1/3, 2/3)')
    .option(
      '--require-state',
      'with --state: a missing state file is exit 2 (for cron), not a new state that sends every member',
    )
    .option(
      '--max-shrink <percent>',
      'with --state: refuse (exit 2, nothing sent) an input with more than this many % fewer rows than the last good run (default 10%)',
    )
    .option(
      '--allow-shrink',
      'with --state: let this run through the shrink guard (members really left); its count becomes the new reference',
    )
    .option(
      '--refresh-after <days>',
      'with --changed-only: send members whose last confirmation is older than DAYS, spread over the nights',
    );
}

export const IMPORT_STATE_EXAMPLES = `
  $ memberctl import members.csv --resume                            after a crash: send only what was not confirmed
  $ memberctl import crm.csv --changed-only --state crm.state         nightly sync: send new and changed members only
  $ memberctl import members.csv --shard "$JOB_COMPLETION_INDEX/4"    one of 4 processes splitting a file by memberId
  $ memberctl import crm.csv --changed-only --state crm.state --require-state --empty-as-null --refresh-after 30   cron`;

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
    requireState: flags.requireState,
    maxShrink: flags.maxShrink === undefined ? undefined : parseMaxShrink(flags.maxShrink),
    allowShrink: flags.allowShrink,
    refreshAfterDays: flags.refreshAfter === undefined ? undefined : parseDays(flags.refreshAfter),
  };
}

function parseDays(text: string): number {
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1) {
    throw new UsageError(`--refresh-after must be a whole number of days, at least 1; got "${text}"`, {
      code: 'refresh-after',
      hint: 'For example --refresh-after 30: each member is sent again at least every 30 days, about 1/30 of them a night.',
    });
  }
  return Number(text);
}
