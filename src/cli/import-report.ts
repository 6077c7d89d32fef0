/**
 * How an import that has a summary ends, as scripts read it: the one object --json prints and --report writes
 * (counts, the durable state's fields, nextCommand, the error that stopped the run), the exit code, and the
 * failures that come after the summary (the sandbox's store file, the report itself). The import command hands
 * core's report here and draws what comes back.
 */
import type { ImportReport } from '../core/import/index.js';
import { OutputFailure } from '../io/output-failure.js';
import { exitCodeFor } from './exit-codes.js';
import { importStateJson } from './import-state-flags.js';
import { againCommand, nextCommandJson } from './next-command.js';
import { importRunError, type RenderContext } from './render/import-view.js';
import { importJson } from './render/import-summary.js';
import type { RunReport } from './run-report.js';
import type { Target } from './target.js';

export interface ImportEnding {
  exitCode: number;
  /** The --json object (the --report file holds the same, with the exit code known before writing it). */
  json: Record<string, unknown>;
  context: RenderContext;
  /** Shown after the summary, each with its exit code already in `exitCode`. */
  laterFailures: OutputFailure[];
}

export interface ImportEndingParts {
  reportFile: RunReport;
  /** Closed here, before the report: the sandbox writes its store file (--sandbox-data) as it closes. */
  target: Target | undefined;
  /** The command line, for nextCommand (cli/next-command.ts). */
  argv: readonly string[];
  flags: { changedOnly?: boolean; padShortRows?: boolean; rejects?: string; report?: string };
}

export async function endImport(
  report: ImportReport,
  { reportFile, target, argv, flags }: ImportEndingParts,
): Promise<ImportEnding> {
  const closeFailure = await closeTarget(target);
  const withUnchanged = Boolean(flags.changedOnly);
  const withPadded = Boolean(flags.padShortRows);
  const stateJson = importStateJson(report.state);
  let exitCode = Math.max(exitCodeFor(report.category), closeFailure ? exitCodeFor(closeFailure.category) : 0);
  const again = againCommand(argv, report.state.journalKept);
  // what the summary tells a person to run next, for scripts too (an input error needs the file fixed first)
  const { summary } = report;
  const result = reportFile.result(
    exitCode,
    {
      ...importJson(summary, { withUnchanged, withPadded }),
      ...stateJson,
      ...serverWaitJson(summary),
      ...(report.rejectsKept ? { rejectsWritten: false } : {}),
      ...nextCommandJson(summary, again),
    },
    importRunError(summary, target, again) ?? closeFailure,
  );
  const reportFailure = await reportFile.finished(result);
  // the report could not be written (full disk): the run did not do all it was asked, said after the summary
  if (reportFailure) exitCode = Math.max(exitCodeFor(reportFailure.category), exitCode);
  return {
    exitCode,
    json: { ...result, exitCode },
    context: {
      withUnchanged,
      withPadded,
      rejectsPath: flags.rejects,
      rejectsKept: report.rejectsKept,
      reportPath: flags.report,
      stateJson,
      againCommand: again,
    },
    laterFailures: [closeFailure, reportFailure].filter((failure) => failure !== undefined),
  };
}

/** `retryAfterMs` (and the limit it went over) when the server's Retry-After stopped the run. */
function serverWaitJson({ serverWait }: ImportReport['summary']): Record<string, number> {
  return serverWait ? { retryAfterMs: serverWait.retryAfterMs, maxRetryAfterMs: serverWait.maxRetryAfterMs } : {};
}

/** A full disk on the sandbox's store file is returned (said after the summary); anything else is thrown. */
async function closeTarget(target: Target | undefined): Promise<OutputFailure | undefined> {
  try {
    await target?.close();
    return undefined;
  } catch (error) {
    if (error instanceof OutputFailure) return error;
    throw error;
  }
}
