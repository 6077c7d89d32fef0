/** `memberctl validate FILE`: read, map and validate every record locally (no network), and say what is wrong. */
import { Command } from 'commander';
import { z } from 'zod';
import {
  validateFile,
  validateCategory,
  type ValidateEvent,
  type ValidateProgressInfo,
} from '../../core/validate/validate-file.js';
import { isMemberctlError, UsageError } from '../../errors.js';
import { exitCodeFor, exitCodesHelp } from '../exit-codes.js';
import { addInputOptions, inputOptionsFrom, type InputFlags } from '../input-options.js';
import { createOutput, renderError } from '../output.js';
import type { CommandResult } from '../program.js';
import { ValidateJsonStream } from '../render/validate-json.js';
import { renderProfile } from '../render/validate-profile.js';
import { renderValidateSummary } from '../render/validate-table.js';
import { createValidateProgress } from '../render/validate-progress.js';

interface ValidateFlags extends InputFlags {
  json?: boolean;
  output?: string;
  rejects?: string;
  force?: boolean;
  show?: string;
  stats?: boolean;
}

/** --show N: invalid records listed on the terminal (all of them go to --rejects / --json). */
const showSchema = z.string().regex(/^\d+$/).transform(Number).default(20);

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
  return command.action(async (file: string, flags: ValidateFlags) => {
    const output = createOutput();
    const show = showSchema.safeParse(flags.show);
    if (!show.success)
      throw new UsageError(`--show must be a whole number, got "${flags.show}"`, {
        hint: 'For example --show 50, or --show 0 for the summary only.',
      });
    const json = flags.json ? new ValidateJsonStream() : undefined;
    const progress = !json && output.stderrIsTTY ? createValidateProgress() : undefined;
    let soFar: ValidateProgressInfo | undefined;
    const onEvent = (event: ValidateEvent): Promise<void> | void => {
      progress?.onEvent(event);
      switch (event.type) {
        case 'warning':
          // the only warning during the run comes at its end: the bar goes first, so it is not drawn through
          progress?.stop();
          return output.warn(event.message);
        case 'started':
          return json?.start(event.file, event.format);
        case 'invalid':
          return json?.invalid(event.invalid);
        case 'progress':
          soFar = event.progress;
      }
    };
    const options = {
      ...inputOptionsFrom(file, flags),
      outputPath: flags.output,
      rejectsPath: flags.rejects,
      force: flags.force,
      sampleSize: show.data,
      profile: flags.stats,
    };
    let stats;
    try {
      stats = await validateFile(options, onEvent);
    } catch (error) {
      progress?.stop();
      // before the JSON object began, the entry point reports the error; after, close the object ourselves
      if (!json?.hasStarted) throw error;
      json.fail(error, soFar, { output: flags.output, rejects: flags.rejects });
      renderError(error, output);
      result.exitCode = exitCodeFor(isMemberctlError(error) ? error.category : 'internal');
      return;
    }
    progress?.stop();
    if (json) json.finish(stats);
    else {
      renderValidateSummary(stats, output, stats.format === 'csv' || stats.format === 'xlsx' ? 'csv' : 'ndjson');
      if (stats.profile) renderProfile(stats.profile, output);
    }
    result.exitCode = exitCodeFor(validateCategory(stats));
  });
}
