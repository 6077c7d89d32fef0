/** `memberctl map init FILE`: a starter mapping file (docs/mapping.md) from an export's headers and first rows. */
import { Command, Option } from 'commander';
import type { InputFormat } from '../../io/source.js';
import type { CommandResult } from '../program.js';

export interface MapInitFlags {
  out?: string;
  force?: boolean;
  format?: InputFormat;
  delimiter?: string;
  encoding?: string;
  sheet?: string;
  nullToken?: string;
  json?: boolean;
  interactive?: boolean;
}

export function mapCommand(result: CommandResult): Command {
  const map = new Command('map')
    .description("work with mapping files (--map): from an export's columns to member fields")
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl map init crm-export.csv                       print a starter mapping
  $ memberctl map init crm-export.csv --out crm-mapping.json

The language (format, timeZone, convert, values, transform, fields): docs/mapping.md`,
    );
  map.addCommand(
    new Command('init')
      .description(
        "write a starter mapping from a file's headers and first rows: a guessed field per column (null for the rest), date formats, placeholders for required fields",
      )
      .argument('<file>', 'the export: CSV, JSON array or NDJSON (optionally .gz), or an .xlsx workbook')
      .option('--out <file>', 'write the mapping here (default: stdout); never the input, never through a symlink')
      .option('--force', 'replace --out if it exists')
      .addOption(
        new Option('--format <format>', 'input format when the extension does not tell').choices([
          'csv',
          'json',
          'ndjson',
          'xlsx',
        ]),
      )
      .option('--delimiter <char>', 'CSV delimiter (default: detected)')
      .option('--sheet <name>', 'the workbook sheet to read (.xlsx; default: the first visible one)')
      .option(
        '--encoding <name>',
        'text encoding: utf-8 (default), windows-1252, latin1, utf-16le, … (a UTF-16 or UTF-32 BOM is recognised)',
      )
      .option(
        '--null-token <text>',
        'an unquoted CSV cell equal to this (e.g. NULL or \\N) is no value, as import and validate read it: not taken for data; a quoted one is text',
      )
      .option('--json', 'print {file, format, out, mapping, notes, decisions} on stdout')
      .option(
        '--interactive',
        'on a terminal: ask each decision and weak guess in turn, with sample cells (Enter keeps the proposal), then write the settled mapping',
      )
      .addHelpText(
        'after',
        `
What the file cannot tell (a time zone, an unclear status word, a missing id or join date) is written under
"decisions": the mapping refuses to run until each entry is settled and deleted (or answered with --interactive).
Then check every rule, and validate with it until every record is valid.

Examples:
  $ memberctl map init crm-export.csv --out crm-mapping.json
  $ memberctl map init crm-export.csv --interactive --out crm-mapping.json
  $ memberctl validate crm-export.csv --map crm-mapping.json --rejects fix-me.csv
  $ memberctl map init contacts.ndjson --json | jq .notes`,
      )
      // what it does is loaded when it runs (map-run.ts): --help and the other commands do not pay for it
      .action(async (file: string, flags: MapInitFlags) => {
        const { runMapInit } = await import('./map-run.js');
        result.exitCode = await runMapInit(file, flags);
      }),
  );
  return map;
}
