/**
 * The input flags every command that reads members shares (validate, import): one definition, so they
 * cannot drift apart. `inputOptionsFrom` turns commander's values into the core's typed options.
 */
import { Command, Option } from 'commander';
import type { CandidateOptions } from '../core/read-candidates.js';
import { UsageError } from '../errors.js';
import type { CsvWorkerChoice, InputFormat } from '../io/source.js';
import { DUPLICATE_RULES, type DuplicateRule } from '../core/duplicates/duplicate-members.js';
import { cliIo } from './io.js';

export interface InputFlags {
  format?: InputFormat;
  delimiter?: string;
  encoding?: string;
  sheet?: string;
  map?: string;
  ignoreUnknownColumns?: boolean;
  nullToken?: string;
  emptyAsNull?: boolean;
  padShortRows?: boolean;
  limit?: string;
  duplicates?: DuplicateRule;
}

export function addInputOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--format <format>', 'input format when the extension does not tell (e.g. stdin)').choices([
        'csv',
        'json',
        'ndjson',
        'xlsx',
      ]),
    )
    .option('--delimiter <char>', 'CSV delimiter (default: detected from the header among , ; tab |); "tab" for a tab')
    .option('--sheet <name>', 'the workbook sheet to read (.xlsx; default: the first visible one)')
    .option(
      '--encoding <name>',
      'text encoding of the input: utf-8 (default), windows-1252, latin1, utf-16le, utf-16be, … (a UTF-16 or UTF-32 BOM is recognised without it)',
    )
    .option(
      '--map <file>',
      'mapping file: columns to fields, with rules (format, timeZone, convert, values, transform, fields); docs/mapping.md; `memberctl map init FILE` writes one',
    )
    .option('--ignore-unknown-columns', 'skip CSV columns that map to no field (default: refuse the file)')
    .option(
      '--null-token <text>',
      "an unquoted CSV cell equal to this (e.g. NULL or \\N) is sent as null, clearing the field; a quoted one is text ('' = --empty-as-null)",
    )
    .option(
      '--empty-as-null',
      'an empty CSV cell is sent as null, clearing the field (default: empty = not given, the server keeps its value)',
    )
    .option(
      '--pad-short-rows',
      'a CSV row with fewer cells than the header gets its missing trailing cells as empty; the summary counts such rows (default: the row is invalid, as its cells may have shifted)',
    )
    .option('--limit <n>', 'read only the first N records')
    .addOption(
      new Option(
        '--duplicates <rule>',
        'a memberId on rows with different content: last-wins (the last row in file order is what the server keeps; reported) refuse (every later such row is invalid), or off (not checked: no memory per member); identical repeats pass',
      )
        .choices(DUPLICATE_RULES)
        .default('last-wins'),
    );
}

/**
 * `env`: the run's environment, read here once (MEMBERCTL_CSV_WORKER, MEMBERCTL_CSV_WORKER_HEAP_MB); nothing below
 * the command line reads it.
 */
export function inputOptionsFrom(
  file: string,
  flags: InputFlags,
  env: NodeJS.ProcessEnv = cliIo().env,
): CandidateOptions {
  return {
    path: file,
    stdin: file === '-' ? cliIo().stdin : undefined,
    format: flags.format,
    delimiter: parseDelimiter(flags.delimiter),
    encoding: flags.encoding,
    sheet: flags.sheet,
    mapFile: flags.map,
    ignoreUnknownColumns: flags.ignoreUnknownColumns,
    nullToken: flags.nullToken,
    emptyAsNull: flags.emptyAsNull,
    padShortRows: flags.padShortRows,
    limit: flags.limit === undefined ? undefined : parseLimit(flags.limit),
    duplicates: flags.duplicates,
    csvWorker: csvWorkerFrom(env.MEMBERCTL_CSV_WORKER),
    csvWorkerHeapMb: heapMbFrom(env.MEMBERCTL_CSV_WORKER_HEAP_MB),
  };
}

/**
 * MEMBERCTL_CSV_WORKER=always|never|auto: a CSV parsed in a worker thread whatever its size, never (the way out
 * should a worker misbehave), or as the size of the file says (SourceOptions.csvWorker; also when unset or empty).
 * Any other value is refused: a typo in the way out must not silently leave the worker on.
 */
function csvWorkerFrom(value: string | undefined): CsvWorkerChoice {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'always' || value === 'never') return value;
  throw new UsageError(`MEMBERCTL_CSV_WORKER must be always, never or auto; got "${value}"`, {
    hint: 'For example MEMBERCTL_CSV_WORKER=never to parse the CSV on the main thread, or unset it.',
  });
}

function parseDelimiter(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === 'tab' || value === '\\t') return '\t';
  if ([...value].length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw new UsageError(`--delimiter must be one character, got "${value}"`, {
      hint: 'For example --delimiter ";" or --delimiter tab.',
    });
  }
  return value;
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`--limit must be a whole number of records, at least 1; got "${value}"`, {
      hint: 'For example --limit 100.',
    });
  }
  return Number(value);
}

/** MEMBERCTL_CSV_WORKER_HEAP_MB=N: the parsing worker's heap cap, a whole number of MB; unset or empty: Node's own. */
function heapMbFrom(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`MEMBERCTL_CSV_WORKER_HEAP_MB must be a whole number of MB, at least 1; got "${value}"`, {
      hint: "For example MEMBERCTL_CSV_WORKER_HEAP_MB=64, or unset it for Node's own limit.",
    });
  }
  return Number(value);
}
