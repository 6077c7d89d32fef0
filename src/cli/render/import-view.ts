/**
 * What an import shows while it runs and when it ends, in one place: the progress bar, warnings and notices on
 * stderr (or JSON lines with --log-format json), the messages on Ctrl-C, then the summary or the --json object
 * on stdout and the error that ended the run. The command hands it core's events and report; it draws only.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { fanOut, type ImportFileEvent, type ImportReport, type ImportSummary } from '../../core/import/index.js';
import { CredentialsError, NotConfirmedError, type MemberctlError } from '../../errors.js';
import { OutputFailure } from '../../io/output-failure.js';
import { importStateNotes } from '../import-state-flags.js';
import { createJsonLog, jsonStderrOutput, logFinished, type JsonLog } from '../log-format.js';
import { packageVersion } from '../../version.js';
import { createOutput, renderError, type Output } from '../output.js';
import { exitCodeFor } from '../exit-codes.js';
import { formatWait, YEAR_MS } from '../../duration.js';
import { createImportProgress, type ImportProgress } from '../progress.js';
import { renderImportSummary } from './import-summary.js';

export interface ImportViewFlags {
  json?: boolean;
  quiet?: boolean;
}

/** What the view needs to know about where the records went (never the token, except to mask it). */
export interface ViewTarget {
  token: string;
  description: string;
  isSandbox: boolean;
}

export interface ImportView {
  onEvent(event: ImportFileEvent): void;
  /** The target is known: from here on the JSON log masks its token, should it ever appear in a message. */
  knowTarget(target: ViewTarget): void;
  /** Ctrl-C number `count`. */
  stopping(count: number, graceMs: number): void;
  /** Stops the progress bar; safe to call twice. */
  finish(): void;
  /** Shows an error that came after the summary; returns its exit code. */
  error(error: MemberctlError): number;
  render(report: ImportReport, json: Record<string, unknown>, context: RenderContext): void;
}

export interface RenderContext {
  withUnchanged: boolean;
  /** --pad-short-rows: the summary counts the rows it completed. */
  withPadded?: boolean;
  rejectsPath?: string;
  /** The rejects file was not written: the run ended before its rejects were complete. */
  rejectsKept?: boolean;
  reportPath?: string;
  /** The --json fields the durable state adds (journal, shard...): the JSON log's finished line carries them too. */
  stateJson: Record<string, unknown>;
  /** The exact command that sends what is left (cli/next-command.ts). */
  againCommand?: string;
}

/**
 * Why a run that has a summary stopped early, if it did: the credentials (never the token itself), a server that
 * cannot be reached (with the command to run once fixed), or input unreadable midway (a usage error).
 */
export function importRunError(
  summary: ImportSummary,
  target: ViewTarget | undefined,
  again = 'the same command with --resume',
): MemberctlError | undefined {
  if (summary.stopReason === 'credentials') {
    const from = target?.isSandbox ? 'the sandbox' : 'the configured token';
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

/** `run.file` is the input as given, `run.profile` the settings profile: the JSON log's run-started line names them. */
export function createImportView(
  command: Command,
  flags: ImportViewFlags,
  run: { file: string; profile?: string },
): ImportView {
  const globals = command.optsWithGlobals() as { logFormat?: string; color?: boolean };
  const plain = createOutput({ noColor: globals.color === false });
  const logJson = globals.logFormat === 'json';
  let jsonLog: JsonLog | undefined = logJson ? createJsonLog({ context: { command: 'import' } }) : undefined;
  let output: Output = jsonLog ? jsonStderrOutput(plain, jsonLog) : plain;
  let target: ViewTarget | undefined;
  const progress: ImportProgress | undefined =
    plain.stderrIsTTY && !flags.json && !flags.quiet && !jsonLog ? createImportProgress() : undefined;
  const warn = (message: string) =>
    jsonLog ? undefined : progress ? progress.log(`warning: ${message}`) : output.warn(message);
  const notice = (message: string) =>
    jsonLog
      ? jsonLog.log('info', 'notice', { message })
      : flags.quiet
        ? undefined
        : output.err(output.color.dim(message));
  const others = (event: ImportFileEvent) => {
    if (event.type === 'warning') warn(event.message);
    else if (event.type === 'notice') notice(event.message);
  };
  const pipelineEvents = fanOut(
    // the JSON log's finished line is written by render, once the exit code is known
    (event) => void (event.type !== 'finished' && jsonLog?.onImportEvent(event)),
    progress?.onEvent.bind(progress),
  );

  return {
    onEvent(event) {
      others(event);
      if (event.type !== 'notice') pipelineEvents(event);
    },
    knowTarget(known) {
      target = known;
      if (logJson) {
        const runStarted = {
          input: run.file,
          profile: run.profile ?? null,
          target: known.description,
          version: packageVersion(),
          host: hostname(),
        };
        jsonLog = createJsonLog({ context: { command: 'import' }, secrets: [known.token], runStarted });
        output = jsonStderrOutput(plain, jsonLog);
      }
    },
    stopping(count, graceMs) {
      // no target yet: the input or target is still opening, nothing can be in flight; the error or summary that
      // follows at once says what the stop ended
      if (count === 1 && target === undefined) return;
      const message =
        count === 1
          ? `stopping: nothing new is sent; waiting up to ${(graceMs / 1000).toFixed(0)} s for requests in flight. Ctrl-C again to stop at once.`
          : 'stopping at once: requests in flight are abandoned (their records count as failed).';
      if (jsonLog) jsonLog.log('warn', 'signal', { count, message });
      else if (!flags.quiet || count > 1) progress ? progress.log(message) : output.err(message);
    },
    error(error) {
      renderError(error, output);
      return exitCodeFor(error.category);
    },
    finish() {
      progress?.stop();
    },
    render(report, json, context) {
      const { summary } = report;
      if (flags.json) output.out(JSON.stringify(json));
      else if (!flags.quiet) {
        renderImportSummary(summary, { file: report.file, target: target?.description ?? '', ...context }, output);
        for (const note of importStateNotes(report.state, summary.failed)) output.out(output.color.dim(note));
      }
      // the summary is out (it accounts for the records before a stop); then the error, on stderr with --json too
      const error = importRunError(summary, target, context.againCommand);
      if (error) renderError(error, output);
      // nextCommand as the --json object has it (next-command.ts decides when there is one)
      const nextCommand = typeof json.nextCommand === 'string' ? { nextCommand: json.nextCommand } : {};
      if (jsonLog) logFinished(jsonLog, summary, report.category, { ...context.stateJson, ...nextCommand });
    },
  };
}
