/**
 * `memberctl import FILE`: flags in, the target resolved, one call to the core's importFile, its report turned into
 * an outcome (../import-outcome.ts: the --json / --report object, the error that stopped the run, the exit code),
 * both drawn by the view (../render/import-view.ts). Everything between (batching, ordering, retries, bisect,
 * accounting) lives in src/core/import. This file declares the flags and the help; import-run.ts, loaded when the
 * command runs, wires files, the target, signals and the view.
 */
import { Command, Option } from 'commander';
import { IMPORT_DEFAULTS } from '../../core/import/defaults.js';
import { exitCodesHelp } from '../exit-codes.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import { addImportStateOptions, IMPORT_STATE_EXAMPLES, type ImportStateFlags } from '../import-state-flags.js';
import type { CommandResult } from '../program.js';

export interface ImportFlags extends InputFlags, ImportStateFlags {
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
  // what it does is loaded when it runs (import-run.ts): --help and the other commands do not pay for it
  return command.action(async (file: string, flags: ImportFlags, self: Command) => {
    const { runImportCommand } = await import('./import-run.js');
    result.exitCode = await runImportCommand(file, flags, self);
  });
}
