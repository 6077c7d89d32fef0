/** `memberctl validate FILE`: read, map and validate every record locally (no network), and say what is wrong. */
import { Command } from 'commander';
import { exitCodesHelp } from '../exit-codes.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import type { CommandResult } from '../program.js';

export interface ValidateFlags extends InputFlags {
  json?: boolean;
  output?: string;
  rejects?: string;
  force?: boolean;
  show?: string;
  stats?: boolean;
}

export function validateCommand(result: CommandResult): Command {
  const command = new Command('validate')
    .description('read, map and validate every record of a file locally, with no network: rows, valid, invalid and why')
    .argument(
      '<file>',
      'CSV, JSON array or NDJSON file, optionally .gz, or an .xlsx workbook; - for standard input (with --format)',
    )
    .option('--json', 'print one JSON object on stdout: counts and every invalid record with its issues')
    .option('--output <file>', 'write the valid items, exactly as import would send them, one JSON object per line')
    .option(
      '--rejects <file>',
      'write the invalid records: .ndjson ({record, line, memberId, stage, reason, input}) or .csv (your columns + stage + error)',
    )
    .option(
      '--force',
      'replace --output and --rejects files even when they are not the ones memberctl last wrote there (edited since, or never written by memberctl)',
    )
    .option('--show <n>', 'invalid records listed on the terminal (default 20; all of them go to --rejects / --json)')
    .option(
      '--stats',
      'also show what the valid items carry, field by field: fill rate, nulls, distinct and top values, date ranges',
    );
  addInputOptions(command).addHelpText(
    'after',
    `
Examples:
  $ memberctl validate members.csv
  $ memberctl validate crm-export.csv --map crm-mapping.json --rejects fix-me.csv
  $ memberctl validate crm-export.csv --map crm-mapping.json --stats      check the mapping's meaning
  $ zcat members.ndjson.gz | memberctl validate - --format ndjson --json --output items.ndjson

${exitCodesHelp('validate')}`,
  );
  // what it does is loaded when it runs (validate-run.ts): --help and the other commands do not pay for it
  return command.action(async (file: string, flags: ValidateFlags, self: Command) => {
    const { runValidate } = await import('./validate-run.js');
    result.exitCode = await runValidate(file, flags, self);
  });
}
