/**
 * `memberctl import FILE`: flags in, the target resolved, one call to the core's importFile, its report turned into
 * an outcome (../import-outcome.ts: the --json / --report object, the error that stopped the run, the exit code),
 * both drawn by the view (../render/import-view.ts). Everything between (batching, ordering, retries, bisect,
 * accounting) lives in src/core/import; this file wires flags, files, the target, signals and the view.
 */
import { Command, Option } from 'commander';
import { z } from 'zod';
import { parseDuration } from '../../duration.js';
import { importFile, IMPORT_DEFAULTS } from '../../core/import/index.js';
import { settingValues, type ResolvedSettings } from '../../core/settings/index.js';
import { UsageError } from '../../errors.js';
import { exitCodeFor, exitCodesHelp } from '../exit-codes.js';
import { checkOutputPaths, openOutputFile } from '../../io/output-file.js';
import { runReport } from '../run-report.js';
import { installStopSignals } from '../import-signals.js';
import { resolveImportTarget, type ImportTargetHandle } from '../target.js';
import { addInputOptions, inputOptionsFrom, type InputFlags } from '../input-options.js';
import {
  addImportStateOptions,
  IMPORT_STATE_EXAMPLES,
  importStateOptionsFrom,
  type ImportStateFlags,
} from '../import-state-flags.js';
import type { CommandResult } from '../program.js';
import { createImportView, type ImportView } from '../render/import-view.js';
import { importOutcome } from '../import-outcome.js';
import { loadCommandSettings } from '../settings-flags.js';
import { cliIo } from '../io.js';

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
  maxRetryAfter?: string;
  grace?: string;
  rejects?: string;
  report?: string;
  force?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export function importCommand(result: CommandResult): Command {
  const command = new Command('import')
    .description('send a file of member records to the import endpoint in batches, and account for every record')
    .argument(
      '<file>',
      'CSV, JSON array or NDJSON file, optionally .gz, or an .xlsx workbook; - for standard input (with --format)',
    );
  // --help in groups, as gh and the sf CLI show theirs: input, target, sending, resume and sync, output
  command.optionsGroup('Input options:');
  addInputOptions(command);
  command.optionsGroup('Target options:');
  command
    .option('--base-url <url>', 'API base URL (else MEMBERCTL_BASE_URL, else the profile)')
    .option('--token-file <file>', 'file whose first line is the member token (else MEMBERCTL_TOKEN, else the profile)')
    .option(
      '--allow-insecure-http',
      'allow plain http:// to a host other than loopback (the token would cross the network in clear)',
    )
    .option('--sandbox', 'import into a local sandbox started for this run (no real server, no token needed)')
    .option(
      '--sandbox-data <file>',
      "with --sandbox: keep the sandbox's members in this file (inspect with `memberctl sandbox --data FILE`)",
    );
  command.optionsGroup('Sending options:');
  command
    .option(
      '--batch-size <n>',
      `records per request (default ${IMPORT_DEFAULTS.batchSize}; lowered for the run after a 413)`,
    )
    .option('--max-batch-bytes <n>', `JSON bytes per request (default ${IMPORT_DEFAULTS.maxBatchBytes})`)
    .option(
      '--concurrency <n>',
      'requests in flight at once, fixed (default: adapts to the server, see --max-concurrency)',
    )
    .option(
      '--max-concurrency <n>',
      `the most requests in flight the adaptive default may reach (default ${IMPORT_DEFAULTS.maxConcurrency})`,
    )
    .option('--retries <n>', 'retries after 429, 5xx, timeouts and connection errors (default 5)')
    .option('--timeout <ms>', 'milliseconds to wait for one response (default 30000)')
    .option(
      '--max-retry-after <duration>',
      'the longest Retry-After (429, 503) to wait, e.g. 30m, 2h, 1d (default 5m, at most 7d); a server asking for more stops the run: exit 4, nothing more sent, --resume later',
    )
    .option(
      '--grace <ms>',
      `after Ctrl-C, how long requests in flight may take to settle (default ${IMPORT_DEFAULTS.graceMs})`,
    );
  command.optionsGroup('Resume and sync options:');
  addImportStateOptions(command);
  command.optionsGroup('Output options:');
  command
    .option(
      '--rejects <file>',
      'write every record not imported or updated: .ndjson ({record, line, memberId, stage, reason, input}) or .csv (your columns + stage + error)',
    )
    .option('--report <file>', 'also write the --json object to this file (0600); failed runs too')
    .option(
      '--force',
      'replace --rejects and --report files even when they are not the ones memberctl last wrote there (edited since, or never written by memberctl)',
    )
    .option(
      '--json',
      'print one JSON object on stdout: {exitCode, startedAt, finishedAt, input, target, error, rows, invalid, importedCount, updatedCount, skipped, rejected, failed, …, nextCommand when there is more to send}',
    )
    .addOption(new Option('--quiet', 'no progress bar and no summary; warnings and errors only').conflicts('json'));
  command.addHelpText(
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
  const settings = loadCommandSettings(command, 'member');
  const { sending, grace } = parseFlags(settings, flags);
  // An output that would destroy the input (or another output) is refused before the input is even opened.
  await checkOutputPaths([file], importOutputs(flags), { force: flags.force });
  if (flags.report) await checkWritable(flags.report, flags.force);
  const reportFile = runReport(flags.report, file, flags.force);
  const view = createImportView(command, flags, { file, profile: settings.profile?.value });
  const signals = installStopSignals((count) => view.stopping(count, grace));
  let target: ImportTargetHandle | undefined;
  try {
    // the server before the input (reading the token contacts nothing); a --sandbox starts once the input is open
    target = await resolveImportTarget(flags, settings);
    reportFile.target = target.name;
    const request = {
      input: inputOptionsFrom(file, flags),
      sending: { ...sending, graceMs: grace },
      rejectsPath: flags.rejects,
      forceOutputs: flags.force,
      state: importStateOptionsFrom(file, flags),
      stopSignal: signals.stop,
      abortSignal: signals.abort,
    };
    const report = await importFile(request, targetPort(target, view), (event) => view.onEvent(event));
    view.finish();
    const outcome = await importOutcome(report, { reportFile, target, argv: cliIo().argv.slice(2), flags });
    view.render(report, outcome);
    return exitCodeFor(outcome.category);
  } catch (error) {
    await reportFile.failed(error); // a failed night replaces last night's report
    throw error;
  } finally {
    signals.dispose();
    view.finish();
    await target?.close(); // a run that threw stops its sandbox here; after importOutcome closed it, nothing happens
  }
}

/** Core opens the target once the input is open; the view learns it then (and masks its token from there on). */
function targetPort(target: ImportTargetHandle, view: ImportView) {
  return {
    openTarget: async () => {
      const opened = await target.open();
      view.knowTarget(opened);
      return opened;
    },
  };
}

/** The sending settings (flag > env > profile > default, already checked by resolution) as the numbers core needs. */
const sendingSchema = z.object({
  batchSize: z.number().int().positive(),
  maxBatchBytes: z.number().int().positive(),
  /** Fixed by --concurrency, MEMBERCTL_CONCURRENCY or a profile; else it adapts up to maxConcurrency. */
  concurrency: z.number().int().positive().optional(),
  retries: z.number().int().nonnegative(),
  timeoutMs: z.number().int().positive(),
  /** Checked by the setting's schema already: a duration of at most 7 days. */
  maxRetryAfter: z.string().transform((text) => parseDuration(text)!),
});

function parseFlags(settings: ResolvedSettings, flags: ImportFlags) {
  const grace = flags.grace === undefined ? IMPORT_DEFAULTS.graceMs : wholeNumber('--grace', flags.grace);
  const { maxRetryAfter, ...sending } = sendingSchema.parse(settingValues(settings));
  const concurrency = concurrencyFrom(flags, sending.concurrency, settings.values.concurrency.source.kind);
  return { sending: { ...sending, ...concurrency, maxRetryAfterMs: maxRetryAfter }, grace };
}

/**
 * --concurrency N (or a profile's or MEMBERCTL_CONCURRENCY's) fixes the number; else it adapts up to
 * --max-concurrency. Typed together they contradict each other; a typed --max-concurrency beats a profile's fixed one.
 */
function concurrencyFrom(
  flags: ImportFlags,
  fixed: number | undefined,
  from: string,
): { concurrency?: number; maxConcurrency: number } {
  if (flags.maxConcurrency === undefined) return { concurrency: fixed, maxConcurrency: IMPORT_DEFAULTS.maxConcurrency };
  if (from === 'flag') {
    throw new UsageError('--concurrency and --max-concurrency cannot be used together', {
      hint: '--concurrency N fixes the number of requests in flight; --max-concurrency N lets it adapt up to N.',
    });
  }
  const max = wholeNumber('--max-concurrency', flags.maxConcurrency);
  if (max < 1 || max > 256)
    throw new UsageError(`--max-concurrency must be from 1 to 256, got ${max}`, {
      hint: 'For example --max-concurrency 64.',
    });
  return { concurrency: undefined, maxConcurrency: max };
}

function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new UsageError(`${flag} must be a whole number, got "${value}"`, { hint: `For example ${flag} 10000.` });
  return Number(value);
}

/** Fails before the run, not after an hour of importing, when the report cannot be written (last night's stays). */
async function checkWritable(path: string, force: boolean | undefined): Promise<void> {
  const file = await openOutputFile(path, 'report', { force });
  await file.abort();
}

function importOutputs(flags: ImportFlags) {
  const named = (flag: string, path: string | false | undefined, ownOnly = false) =>
    typeof path === 'string' ? { flag, path, ownOnly } : undefined;
  return [
    // rewritten by every run: replaced only when memberctl wrote them, unchanged since (else --force)
    named('--rejects', flags.rejects, true),
    named('--report', flags.report, true),
    named('--journal', flags.journal),
    named('--state', flags.state),
  ];
}
