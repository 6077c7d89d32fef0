/**
 * `memberctl import FILE`: flags in, one call to the core's runImport, the summary out. Everything between
 * (batching, ordering, retries, bisect, accounting) lives in src/core/import; this file wires files, the target,
 * signals, the progress bar and the output modes.
 */
import { Command, Option } from 'commander';
import { fanOut, importCategory, runImport, IMPORT_DEFAULTS, type ImportEvent } from '../../core/import/index.js';
import { readCandidates } from '../../core/read-candidates.js';
import { CredentialsError, NotConfirmedError, UsageError } from '../../errors.js';
import { exitCodeFor, exitCodesHelp } from '../exit-codes.js';
import { MemberApiClient } from '../../http/member-api.js';
import { memberRetryPolicy } from '../../http/retry-policy.js';
import { countRows } from '../../io/count-rows.js';
import { checkOutputPaths, openOutputFile, writeOutputFile } from '../../io/output-file.js';
import { openRejectsWriter, type RejectsWriter } from '../../io/rejects-writer.js';
import { installStopSignals } from '../import-signals.js';
import { resolveTarget, type Target } from '../target.js';
import { addInputOptions, inputOptionsFrom, type InputFlags } from '../input-options.js';
import { openImportState, type ImportStateSession } from '../../core/import-state/index.js';
import { addImportStateOptions, IMPORT_STATE_EXAMPLES, importStateJson, importStateNotes, importStateOptionsFrom, type ImportStateFlags } from '../import-state-flags.js';
import { createJsonLog, jsonStderrOutput, logFinished, logFormatFromArgv } from '../log-format.js';
import { packageVersion } from '../../version.js';
import { hostname } from 'node:os';
import { createOutput, renderError } from '../output.js';
import type { CommandResult } from '../program.js';
import { createImportProgress, type ImportProgress } from '../progress.js';
import { importJson, renderImportSummary } from '../render/import-summary.js';
import { loadCommandSettings } from '../settings-flags.js';

interface ImportFlags extends InputFlags, ImportStateFlags {
  baseUrl?: string;
  tokenFile?: string;
  allowInsecureHttp?: boolean;
  sandbox?: boolean;
  sandboxData?: string;
  batchSize?: string;
  maxBatchBytes?: string;
  concurrency?: string;
  maxConcurrency?: string;
  retries?: string;
  timeout?: string;
  grace?: string;
  rejects?: string;
  report?: string;
  json?: boolean;
  quiet?: boolean;
}

export function importCommand(result: CommandResult): Command {
  const command = new Command('import')
    .description('send a file of member records to the import endpoint in batches, and account for every record')
    .argument('<file>', 'CSV, JSON array or NDJSON file, optionally .gz; - for standard input (with --format)')
    .option('--base-url <url>', 'API base URL (else MEMBERCTL_BASE_URL, else the profile)')
    .option('--token-file <file>', 'file whose first line is the member token (else MEMBERCTL_TOKEN, else the profile)')
    .option('--allow-insecure-http', 'allow plain http:// to a host other than loopback (the token would cross the network in clear)')
    .option('--sandbox', 'import into a local sandbox started for this run (no real server, no token needed)')
    .option('--sandbox-data <file>', 'with --sandbox: keep the sandbox\'s members in this file (inspect with `memberctl sandbox --data FILE`)')
    .option('--batch-size <n>', `records per request (default ${IMPORT_DEFAULTS.batchSize}; lowered for the run after a 413)`)
    .option('--max-batch-bytes <n>', `JSON bytes per request (default ${IMPORT_DEFAULTS.maxBatchBytes})`)
    .option('--concurrency <n>', 'requests in flight at once, fixed (default: adapts to the server, see --max-concurrency)')
    .option('--max-concurrency <n>', `the most requests in flight the adaptive default may reach (default ${IMPORT_DEFAULTS.maxConcurrency})`)
    .option('--retries <n>', 'retries after 429, 5xx, timeouts and connection errors (default 5)')
    .option('--timeout <ms>', 'milliseconds to wait for one response (default 30000)')
    .option('--grace <ms>', `after Ctrl-C, how long requests in flight may take to settle (default ${IMPORT_DEFAULTS.graceMs})`)
    .option('--rejects <file>', 'write every record not imported or updated: .ndjson ({record, line, memberId, stage, reason, input}) or .csv (your columns + stage + error)')
    .option('--report <file>', 'also write the --json object to this file (mode 0600), e.g. for cron logs')
    .option('--json', 'print one JSON object on stdout: {rows, invalid, importedCount, updatedCount, skipped, rejected, failed, batches, requests, retries, durationMs}')
    .addOption(new Option('--quiet', 'no progress bar and no summary; warnings and errors only').conflicts('json'));
  addInputOptions(addImportStateOptions(command)).addHelpText(
    'after',
    `
Examples:
  $ memberctl import members.csv --sandbox                           try it locally first
  $ memberctl import members.csv --limit 100 --rejects fix-me.csv    a safe first try against production
  $ MEMBERCTL_TOKEN=... memberctl import members.ndjson.gz --base-url https://api.example.com --report run.json${IMPORT_STATE_EXAMPLES}

${exitCodesHelp('import')}`,
  );
  return command.action(async (file: string, flags: ImportFlags, self: Command) => {
    result.exitCode = await runImportCommand(file, flags, self);
  });
}

async function runImportCommand(file: string, flags: ImportFlags, command: Command): Promise<number> {
  let output = createOutput();
  const settings = loadCommandSettings(command, 'member');
  const logJson = logFormatFromArgv(process.argv) === 'json';
  let jsonLog = logJson ? createJsonLog({ context: { command: 'import' } }) : undefined;
  const graceMs = flags.grace === undefined ? IMPORT_DEFAULTS.graceMs : wholeNumber('--grace', flags.grace);
  const { limit, ...input } = inputOptionsFrom(file, flags);
  const values = settings.values;
  const { concurrency, maxConcurrency } = concurrencyFrom(flags, values.concurrency.value, values.concurrency.source.kind);

  // An output that would destroy the input (or another output) is refused before the input is even opened.
  await checkOutputPaths([file], importOutputs(flags));
  // The input first: a wrong file or mapping is reported before any server is contacted.
  // (warnings about the input's end come once it is read: by then `warn` below is set)
  let warnLate: (message: string) => void = (message) => output.warn(message);
  const stream = await readCandidates({ ...input, onEndWarning: (message) => warnLate(message), holdUnterminated: flags.changedOnly });
  let target: Target | undefined;
  let rejects: RejectsWriter | undefined;
  let client: MemberApiClient | undefined;
  let progress: ImportProgress | undefined;
  let durable: ImportStateSession | undefined;
  const signals = installStopSignals((count) => {
    const message =
      count === 1
        ? `stopping: nothing new is sent; waiting up to ${(graceMs / 1000).toFixed(0)} s for requests in flight. Ctrl-C again to stop at once.`
        : 'stopping at once: requests in flight are abandoned (their records count as failed).';
    if (jsonLog) jsonLog.log('warn', 'signal', { count, message });
    else if (!flags.quiet || count > 1) (progress ? progress.log(message) : output.err(message));
    void stream.close();
  });
  try {
    target = await resolveTarget('member', flags, settings);
    // from here on the log knows the token, to mask it should it ever appear in a message
    if (logJson) {
      const runStarted = { input: file, profile: settings.profile?.value ?? null, target: target.description, version: packageVersion(), host: hostname() };
      jsonLog = createJsonLog({ context: { command: 'import' }, secrets: [target.token], runStarted });
      output = jsonStderrOutput(output, jsonLog);
    }
    const warn = (message: string) => (jsonLog ? jsonLog.log('warn', 'warning', { message }) : progress ? progress.log(`warning: ${message}`) : output.warn(message));
    warnLate = warn;
    for (const message of [...target.warnings, ...stream.warnings]) warn(message);
    if (flags.rejects) rejects = await openRejectsWriter(flags.rejects, { headers: stream.source.headers, delimiter: stream.source.delimiter, encoding: stream.source.encoding });
    if (flags.report) await checkWritable(flags.report);
    // journal, --changed-only state, --shard: checked before anything is sent (a wrong journal is exit 2)
    const notice = (message: string) => (jsonLog ? jsonLog.log('info', 'notice', { message }) : flags.quiet ? undefined : output.err(output.color.dim(message)));
    // the shrink guard's count, before anything is sent (only with a state to compare with: see docs/nightly.md)
    const inputRows = flags.state ? (await countRows(file, stream.source.format))?.rows : undefined;
    const stateOptions = { ...importStateOptionsFrom(file, flags), sourceKey: stream.sourceKey, inputRows, limited: limit !== undefined, endedSuspect: () => stream.end.unterminated, target: target.name };
    durable = await openImportState(stateOptions, notice, warn);

    const showProgress = output.stderrIsTTY && !flags.json && !flags.quiet && !jsonLog;
    progress = showProgress ? createImportProgress() : undefined;
    const log = jsonLog;
    const onEvent = fanOut(
      // the finished line is written below, once the exit code is known
      log ? (event: ImportEvent) => void (event.type !== 'finished' && log.onImportEvent(event)) : undefined,
      progress?.onEvent.bind(progress),
      !jsonLog ? (event: ImportEvent) => void (event.type === 'warning' && warn(event.message)) : undefined,
    );
    client = new MemberApiClient({
      baseUrl: target.baseUrl,
      token: target.token,
      connections: concurrency ?? maxConcurrency,
      timeoutMs: values.timeoutMs.value!,
      retry: memberRetryPolicy(values.retries.value!),
      onRetry: (info) => onEvent({ type: 'retry', reason: info.reason, delayMs: info.delayMs, attempt: info.attempt }),
    });
    const summary = await runImport({
      chunks: stream,
      transport: client,
      batchSize: values.batchSize.value!,
      maxBatchBytes: values.maxBatchBytes.value!,
      concurrency,
      maxConcurrency,
      limit,
      stopSignal: signals.stop,
      abortSignal: signals.abort,
      graceMs,
      rejects,
      hooks: durable.hooks,
      onEvent,
      bytesRead: () => stream.source.bytesRead(),
      totalBytes: stream.source.totalBytes,
    });
    progress?.stop();
    await rejects?.close();
    rejects = undefined;
    const finished = await durable.finish(summary);
    const withUnchanged = Boolean(flags.changedOnly);
    const report = { ...importJson(summary, { withUnchanged }), ...importStateJson(durable, finished) };
    if (flags.report) await writeReport(flags.report, report);
    if (flags.json) output.out(JSON.stringify(report));
    else if (!flags.quiet) {
      renderImportSummary(summary, { file: stream.source.file, target: target.description, rejectsPath: flags.rejects, reportPath: flags.report, withUnchanged }, output);
      for (const note of importStateNotes(durable, finished, summary.failed)) output.out(output.color.dim(note));
    }
    if (summary.stopReason === 'credentials') {
      // the summary is out; the error says why and what to check (never the token itself)
      renderError(new CredentialsError(`the server refused the credentials (${summary.stopMessage ?? 'no details'}) from ${target.isSandbox ? 'the sandbox' : 'the configured token'}`), output);
    }
    if (summary.stopReason === 'unreachable') {
      // on stderr with --json too: a script's log must say why nothing was imported
      const hint = flags.journal === false ? 'fix it, then run the same command again' : 'fix it, then run the same command with --resume (if the fix is another --base-url, with --restart instead)';
      renderError(new NotConfirmedError(summary.stopMessage ?? 'stopped early', { hint }), output);
    }
    // unreadable input midway: the summary above accounts for the records before it; then the error, exit 2
    if (summary.inputError) renderError(summary.inputError, output);
    const exitCode = exitCodeFor(importCategory(summary));
    if (log) logFinished(log, summary, exitCode, importStateJson(durable, finished));
    return exitCode;
  } finally {
    signals.dispose();
    progress?.stop();
    await Promise.allSettled([stream.close(), rejects?.close(), client?.close(), target?.close(), durable?.finish(undefined)]);
  }
}

/**
 * --concurrency N (or a profile's or MEMBERCTL_CONCURRENCY's) fixes the number; else it adapts up to
 * --max-concurrency. Typed together they contradict each other; a typed --max-concurrency beats a profile's fixed one.
 */
function concurrencyFrom(flags: ImportFlags, fixed: number | undefined, from: string): { concurrency?: number; maxConcurrency: number } {
  if (flags.maxConcurrency === undefined) return { concurrency: fixed, maxConcurrency: IMPORT_DEFAULTS.maxConcurrency };
  if (from === 'flag') {
    throw new UsageError('--concurrency and --max-concurrency cannot be used together', { hint: '--concurrency N fixes the number of requests in flight; --max-concurrency N lets it adapt up to N.' });
  }
  const max = wholeNumber('--max-concurrency', flags.maxConcurrency);
  if (max < 1 || max > 256) throw new UsageError(`--max-concurrency must be from 1 to 256, got ${max}`, { hint: 'For example --max-concurrency 64.' });
  return { maxConcurrency: max };
}

function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got "${value}"`, { hint: `For example ${flag} 10000.` });
  return Number(value);
}

/** Fails before the run, not after an hour of importing, when the report cannot be written (last night's stays). */
async function checkWritable(path: string): Promise<void> {
  const file = await openOutputFile(path, 'report');
  await file.abort();
}

async function writeReport(path: string, report: object): Promise<void> {
  await writeOutputFile(path, 'report', JSON.stringify(report, null, 2));
}

function importOutputs(flags: ImportFlags) {
  const named = (flag: string, path: string | false | undefined) => (typeof path === 'string' ? { flag, path } : undefined);
  return [named('--rejects', flags.rejects), named('--report', flags.report), named('--journal', flags.journal), named('--state', flags.state)];
}
