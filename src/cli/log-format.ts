/**
 * `--log-format json`: one JSON object per line on stderr, for cron logs and log shippers. Lines carry a time,
 * a level and an event name; counts, record numbers and memberIds only, never member data, and never a token
 * (any secret handed to the writer is masked in every line, as a last line of defence).
 */
import { randomBytes } from 'node:crypto';
import type { ImportEvent } from '../core/import/events.js';
import type { ImportSummary } from '../core/import/types.js';
import { errorToJson } from './output.js';
import type { ResultCategory } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import { cliIo } from './io.js';

/**
 * On every line: which run wrote it (one process, one run; several runs may share a log file, e.g. a job that
 * overran into the next night's) and its process id (to match a line with ps, a lock file or a kill).
 */
const RUN = { runId: randomBytes(6).toString('hex'), pid: process.pid };

export type LogFormat = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface JsonLogOptions {
  /** Where lines go (stderr). */
  write?: (line: string) => void;
  /** Values to mask wherever they appear (the token). */
  secrets?: (string | undefined)[];
  now?: () => Date;
  /** Fields added to every line, e.g. {command: 'import'}. */
  context?: Record<string, unknown>;
  /** Fields added to the run-started line: input, profile, target, version, host. */
  runStarted?: Record<string, unknown>;
}

export interface JsonLog {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
  /** Listener for the import pipeline's events. */
  onImportEvent(event: ImportEvent): void;
}

/** --log-format as given anywhere on the command line (commander is not running yet when main.ts needs it). */
export function logFormatFromArgv(argv: readonly string[]): LogFormat {
  const index = argv.lastIndexOf('--log-format');
  const inline = argv.findLast((arg) => arg.startsWith('--log-format='));
  const value = inline?.slice('--log-format='.length) ?? (index >= 0 ? argv[index + 1] : undefined);
  return value === 'json' ? 'json' : 'text';
}

/** The summary as logged: counts and top reasons (the examples of skipped records are in the --report file). */
export function summaryForLog(summary: ImportSummary): Record<string, unknown> {
  const { skippedExamples: _examples, ...rest } = summary;
  return rest;
}

export function createJsonLog(options: JsonLogOptions = {}): JsonLog {
  const stderr = cliIo().stderr;
  const write = options.write ?? ((line: string) => void stderr.write(line));
  const now = options.now ?? (() => new Date());
  // every token the run knows of is masked on its stderr (run-secrets.ts); these for a `write` of the caller's
  const secrets = (options.secrets ?? []).filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= 4,
  );

  function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
    let line = JSON.stringify({ time: now().toISOString(), level, event, ...RUN, ...options.context, ...fields });
    for (const secret of secrets) line = line.replaceAll(secret, '[redacted]');
    write(`${line}\n`);
  }

  function onImportEvent(event: ImportEvent): void {
    switch (event.type) {
      case 'run-started': {
        const { type, ...fields } = event;
        return log('info', type, { ...options.runStarted, ...fields });
      }
      case 'batch-confirmed': {
        const { type, durationMs, ...fields } = event;
        return log('info', type, { ...fields, durationMs: Math.round(durationMs) });
      }
      case 'batch-bisected':
      case 'batch-split':
      case 'records-rejected':
      case 'retry':
      case 'stopping': {
        const { type, ...fields } = event;
        return log('warn', type, fields);
      }
      case 'warning':
        return log('warn', 'warning', { code: event.code, message: event.message });
      case 'batch-failed': {
        const { type, ...fields } = event;
        return log('error', type, fields);
      }
      case 'finished':
        return log(
          event.summary.failed > 0 || event.summary.stopReason ? 'error' : 'info',
          'finished',
          summaryForLog(event.summary),
        );
      case 'batch-sent':
      case 'progress':
        // Per-request and per-tick chatter: a cron log wants outcomes. (Progress is for the terminal's bar.)
        return;
    }
  }

  return { log, onImportEvent };
}

/** An import's last line: its exit code and its summary's counts (logRunEnd). */
export function logFinished(
  log: JsonLog,
  summary: ImportSummary,
  category: ResultCategory,
  extra: Record<string, unknown> = {},
): void {
  logRunEnd(log, category, { ...summaryForLog(summary), ...extra });
}

/**
 * The last line of a run, import's and validate's alike: `finished` with its exit code and counts; `error` when it
 * failed, `warn` when some records were not taken (exit 3), else `info`.
 */
export function logRunEnd(log: JsonLog, category: ResultCategory, counts: Record<string, unknown>): void {
  const level: LogLevel = category === 'ok' ? 'info' : category === 'partial' ? 'warn' : 'error';
  log.log(level, 'finished', { exitCode: exitCodeFor(category), ...counts });
}

/** An error as one line, whenever it happens (before reading or during the run): {level, code, message, hint}. */
export function logError(log: JsonLog, error: unknown): void {
  log.log('error', 'error', errorToJson(error).error);
}

/**
 * An Output whose stderr lines become JSON log lines: for commands that print their diagnostics through
 * `output.err`/`output.warn` ("error: ...", "hint: ...", "note: ..."), one wrap gives them --log-format json.
 * stdout (results) is untouched.
 */
export function jsonStderrOutput<T extends { err(text: string): void; warn(text: string): void }>(
  output: T,
  log: JsonLog,
): T {
  const err = (text: string) => {
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '').trim();
    const match = /^(error|internal error|warning|hint|note):\s*([\s\S]*)$/.exec(plain);
    const kind = match?.[1];
    const message = match?.[2] ?? plain;
    if (kind === 'error' || kind === 'internal error') log.log('error', 'error', { message });
    else if (kind === 'warning') log.log('warn', 'warning', { message });
    else log.log('info', kind ?? 'message', { message });
  };
  return {
    ...output,
    err,
    warn: (text: string) => log.log('warn', 'warning', { message: text }),
    logError: (error: unknown) => logError(log, error),
  };
}
