/**
 * What became of an import that has a summary, as data: the error that stopped it early (if one did), the exact
 * command that sends what is left, the one object --json prints and --report writes, the exit code (through the
 * one table, exit-codes.ts), and the failures that come after the summary (the sandbox's store file, the report
 * itself). The import command gets core's report, asks for its outcome here and hands both to the view.
 */
import type { ImportReport, ImportStateReport, ImportSummary } from '../core/import/index.js';
import { shellCommand } from '../core/shell-command.js';
import { formatWait, YEAR_MS } from '../duration.js';
import { CredentialsError, NotConfirmedError, type MemberctlError, type ResultCategory } from '../errors.js';
import { OutputFailure } from '../io/output-failure.js';
import { exitCodeFor } from './exit-codes.js';
import type { RunReport } from './run-report.js';
import type { ImportTargetHandle } from './target.js';

export interface ImportOutcome {
  /**
   * How the run ended: core's category, or a failure's after the summary when its exit code is the higher (a
   * store file or report that could not be written: the run did not do all it was asked).
   */
  category: ResultCategory;
  /** The --json object (the --report file holds the same). */
  json: Record<string, unknown>;
  /** Why the run stopped early, shown after the summary; `json.error` is this, else a failure closing the target. */
  stopError?: MemberctlError;
  /** The exact command that sends what is left, for the summary's advice. */
  againCommand: string;
  /** What the JSON log's finished line adds to the counts, as --json has it: the state's fields and nextCommand. */
  finishedFields: Record<string, unknown>;
  /** Shown after the summary, each counted in `category` already. */
  laterFailures: OutputFailure[];
}

export interface ImportOutcomeParts {
  reportFile: RunReport;
  /** Closed here, before the report: the sandbox writes its store file (--sandbox-data) as it closes. */
  target: ImportTargetHandle;
  /** The command line, for the next command. */
  argv: readonly string[];
  flags: { changedOnly?: boolean; padShortRows?: boolean };
}

export async function importOutcome(
  report: ImportReport,
  { reportFile, target, argv, flags }: ImportOutcomeParts,
): Promise<ImportOutcome> {
  const closeFailure = await closeTarget(target);
  let category = worse(report.category, closeFailure?.category);
  const again = againCommand(argv, report.state.journalKept);
  const { summary } = report;
  const stopError = importRunError(summary, target, again);
  const state = stateJson(report.state);
  const next = nextCommandJson(summary, again);
  const result = reportFile.result(
    exitCodeFor(category),
    {
      ...summaryJson(summary, flags),
      ...state,
      ...serverWaitJson(summary),
      ...(report.rejectsKept ? { rejectsWritten: false } : {}),
      ...next,
    },
    stopError ?? closeFailure,
  );
  const reportFailure = await reportFile.finished(result);
  // the report could not be written (full disk): the run did not do all it was asked, said after the summary
  category = worse(category, reportFailure?.category);
  return {
    category,
    json: { ...result, exitCode: exitCodeFor(category) },
    stopError,
    againCommand: again,
    finishedFields: { ...state, ...next },
    laterFailures: [closeFailure, reportFailure].filter((failure) => failure !== undefined),
  };
}

/**
 * The fields of the summary a script sees, in this order (issue 4's shape; `skipped` a count beside the first
 * `skippedExamples`); `unchanged` only with --changed-only, `paddedRows` only with --pad-short-rows.
 */
const JSON_FIELDS = [
  'rows',
  'paddedRows',
  'invalid',
  'unchanged',
  'importedCount',
  'updatedCount',
  'skipped',
  'skippedExamples',
  'rejected',
  'failed',
  'duplicateMembers',
  'omittedCells',
  'batches',
  'requests',
  'retries',
  'concurrency',
  'durationMs',
] as const;
function summaryJson(summary: ImportSummary, flags: ImportOutcomeParts['flags']): Record<string, unknown> {
  const fields = JSON_FIELDS.filter(
    (field) => (field !== 'unchanged' || flags.changedOnly) && (field !== 'paddedRows' || flags.padShortRows),
  );
  return Object.fromEntries(fields.map((field) => [field, summary[field]]));
}

/**
 * Why a run that has a summary stopped early, if it did: the credentials (never the token itself), a server that
 * cannot be reached or asks to wait too long (with the command to run once fixed), input unreadable midway (a
 * usage error), an output that could not be written.
 */
export function importRunError(
  summary: ImportSummary,
  target: { isSandbox: boolean },
  again = 'the same command with --resume',
): MemberctlError | undefined {
  if (summary.stopReason === 'credentials') {
    const from = target.isSandbox ? 'the sandbox' : 'the configured token';
    return new CredentialsError(
      `the server refused the credentials (${summary.stopMessage ?? 'no details'}) from ${from}`,
    );
  }
  if (summary.stopReason === 'server-wait' && summary.serverWait) {
    const { retryAfterMs, maxRetryAfterMs } = summary.serverWait;
    // beyond a year no date is worth printing (Retry-After: 99999999999999999999 would give year +275760)
    const until = retryAfterMs > YEAR_MS ? null : new Date(Date.now() + retryAfterMs).toISOString();
    return new NotConfirmedError(summary.stopMessage ?? 'the server asked to wait', {
      code: 'server-wait',
      details: { retryAfterMs, maxRetryAfterMs, retryAfter: formatWait(retryAfterMs), until },
      hint:
        until === null
          ? `No run should wait that long: ask the API's operators why the server answers so, then run: ${again}`
          : `Run again after ${until}: ${again}. To let a run wait that long instead, raise --max-retry-after (at most 7d).`,
    });
  }
  if (summary.stopReason === 'reader') {
    return new NotConfirmedError(`${summary.stopMessage ?? 'the input could not be read on'}: the run stopped`, {
      code: 'reader-failed',
      hint: `The file itself may be fine: go on with the CSV parsed on the main thread (MEMBERCTL_CSV_WORKER=never): MEMBERCTL_CSV_WORKER=never ${again}`,
    });
  }
  if (summary.stopReason === 'unreachable') {
    const hint = `fix it, then run: ${again}${again.endsWith('--resume') ? ' (if the fix is another --base-url, with --restart instead)' : ''}`;
    return new NotConfirmedError(summary.stopMessage ?? 'stopped early', { hint });
  }
  if (summary.outputError) {
    const { kind, file, errno } = summary.outputError;
    return new OutputFailure(kind, file, errno, `Free some space (or raise the limit), then run: ${again}`);
  }
  return summary.inputError;
}

/**
 * The exact command to run next, after a run that left work to do (Ctrl-C, records not confirmed, an early stop).
 * "Run the same command again" was wrong advice: with a journal kept, the same command is refused until it says
 * --resume. So the advice is this run's own arguments, with --restart swapped for --resume when a journal was
 * kept, quoted for a POSIX shell so that it can be pasted as it is.
 */
export function againCommand(argv: readonly string[], journalKept: boolean): string {
  const args = argv.filter((arg) => arg !== '--restart' && (!journalKept || arg !== '--resume'));
  if (journalKept) args.push('--resume');
  return shellCommand(['memberctl', ...args]);
}

/**
 * `{nextCommand}` when the run left records that running again sends (not after an input error: the file must be
 * fixed first), else nothing: the --json object, --report and the JSON log's finished line all carry this one.
 */
function nextCommandJson(summary: ImportSummary, again: string): { nextCommand?: string } {
  return (summary.failed > 0 || summary.stopReason) && !summary.inputError ? { nextCommand: again } : {};
}

/** What the durable state adds to the --json object (only what applies, so a plain import's object is unchanged). */
function stateJson(state: ImportStateReport): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (state.absentFromInput !== undefined) extra.absentFromInput = state.absentFromInput;
  if (state.refreshed > 0) extra.refreshed = state.refreshed;
  if (state.resumedRecords > 0) extra.resumedRecords = state.resumedRecords;
  if (state.shard) extra.shard = state.shard;
  if (state.shard) extra.otherShards = state.otherShards;
  if (state.journalPath && state.journalKept) extra.journal = state.journalPath; // where --resume will look
  return extra;
}

/** `retryAfterMs` (and the limit it went over) when the server's Retry-After stopped the run. */
function serverWaitJson({ serverWait }: ImportSummary): Record<string, number> {
  return serverWait ? { retryAfterMs: serverWait.retryAfterMs, maxRetryAfterMs: serverWait.maxRetryAfterMs } : {};
}

/** The category with the higher exit code. */
function worse(category: ResultCategory, other: ResultCategory | undefined): ResultCategory {
  return other !== undefined && exitCodeFor(other) > exitCodeFor(category) ? other : category;
}

/** A full disk on the sandbox's store file is returned (said after the summary); anything else is thrown. */
async function closeTarget(target: ImportTargetHandle): Promise<OutputFailure | undefined> {
  try {
    await target.close();
    return undefined;
  } catch (error) {
    if (error instanceof OutputFailure) return error;
    throw error;
  }
}
