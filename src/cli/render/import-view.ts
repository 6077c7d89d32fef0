/**
 * What an import shows while it runs and when it ends, in one place: the progress bar, warnings and notices on
 * stderr (or JSON lines with --log-format json), the messages on Ctrl-C, then the summary or the --json object
 * on stdout and the error that ended the run. The command hands it core's events and report; it draws only.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { fanOut, type ImportFileEvent, type ImportReport } from '../../core/import/index.js';
import type { ImportOutcome } from '../import-outcome.js';
import { createJsonLog, jsonStderrOutput, logFinished, type JsonLog } from '../log-format.js';
import { packageVersion } from '../../version.js';
import { createOutput, renderError, type Output } from '../output.js';
import { createImportProgress, type ImportProgress } from '../progress.js';
import { renderImportSummary } from './import-summary.js';
import { formatFromName } from '../../io/input-format.js';
import type { InputFormat } from '../../io/source.js';

export interface ImportViewFlags {
  json?: boolean;
  quiet?: boolean;
  /** --changed-only: the summary counts the unchanged records. */
  changedOnly?: boolean;
  /** --pad-short-rows: the summary counts the rows it completed. */
  padShortRows?: boolean;
  rejects?: string;
  report?: string;
  /** --format, else the input's name tells the summary which rejects file to advise. */
  format?: string;
}

/** What the view needs to know about where the records went (never the token, except to mask it). */
export interface ViewTarget {
  token: string;
  description: string;
}

export interface ImportView {
  onEvent(event: ImportFileEvent): void;
  /** The target is open (the input is open too): the JSON log masks its token from here on, should it ever appear. */
  knowTarget(target: ViewTarget): void;
  /** Ctrl-C number `count`. */
  stopping(count: number, graceMs: number): void;
  /** Stops the progress bar; safe to call twice. */
  finish(): void;
  /**
   * The summary or the --json object, then the error that stopped the run, the JSON log's finished line, and the
   * failures that came after the summary.
   */
  render(report: ImportReport, outcome: ImportOutcome): void;
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
    // the JSON log's finished line is written by render, once the exit code is known (the outcome's category)
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
    finish() {
      progress?.stop();
    },
    render(report, outcome) {
      const { summary } = report;
      if (flags.json) output.out(JSON.stringify(outcome.json));
      else if (!flags.quiet) {
        const context = {
          file: report.file,
          target: target?.description ?? '',
          withUnchanged: Boolean(flags.changedOnly),
          withPadded: Boolean(flags.padShortRows),
          rejectsPath: flags.rejects,
          rejectsKept: report.rejectsKept,
          reportPath: flags.report,
          inputFormat: (flags.format as InputFormat | undefined) ?? formatFromName(report.file).format,
          againCommand: outcome.againCommand,
          state: report.state,
        };
        renderImportSummary(summary, context, output);
      }
      // the summary is out (it accounts for the records before a stop); then the error, on stderr with --json too
      if (outcome.stopError) renderError(outcome.stopError, output);
      if (jsonLog) logFinished(jsonLog, summary, outcome.category, outcome.finishedFields);
      for (const failure of outcome.laterFailures) renderError(failure, output);
    },
  };
}
