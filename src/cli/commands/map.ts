/** `memberctl map init FILE`: a starter mapping file (docs/mapping.md) from an export's headers and first rows. */
import { Command, Option } from 'commander';
import { initMapping, type MapInitResult } from '../../core/map-init/map-init.js';
import { checkOutputPaths, writeOutputFile } from '../../io/output-file.js';
import type { InputFormat } from '../../io/source.js';
import { shellCommand } from '../../core/shell-command.js';
import { createOutput, type Output } from '../output.js';
import type { CommandResult } from '../program.js';
import { exitCodeFor } from '../exit-codes.js';
import { UsageError } from '../../errors.js';
import { askDecisions } from './map-interactive.js';
import { untilCtrlC } from './subscribe-gather.js';
import { PromptInterrupted } from './subscribe-prompt.js';
import { cliIo } from '../io.js';

interface MapInitFlags {
  out?: string;
  force?: boolean;
  format?: InputFormat;
  delimiter?: string;
  encoding?: string;
  sheet?: string;
  json?: boolean;
  interactive?: boolean;
}

/** --interactive asks on the terminal: stdin and stderr must be one, and the file cannot come on stdin. */
function checkInteractive(file: string, flags: MapInitFlags): void {
  const why = flags.json
    ? '--json prints the mapping for a program, which cannot answer questions'
    : file === '-'
      ? 'the export comes on standard input, where the answers would have to come'
      : !cliIo().stdin.isTTY || !cliIo().stderr.isTTY
        ? 'standard input or standard error is not a terminal'
        : undefined;
  if (why)
    throw new UsageError(`--interactive needs a terminal: ${why}`, {
      code: 'not-a-terminal',
      hint: 'run map init without --interactive: the decisions are written under "decisions" in the mapping, to settle by hand',
    });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The notes, then each decision, then what to do next: settle the decisions, or validate. */
function renderInitSummary(init: MapInitResult, out: string | undefined, output: Output): void {
  for (const note of init.notes) output.err(`note: ${note}`);
  const merged = Object.entries(init.mapping.decisions ?? {});
  for (const [key, question] of merged) output.err(`decide: ${key}: ${question}`);
  if (!out) {
    if (merged.length > 0)
      output.err(
        `${plural(merged.length, 'decision')} to settle: the mapping refuses to run until each entry of its "decisions" is settled and deleted`,
      );
    return;
  }
  const validate = `${init.validateCommand} --map ${shellCommand([out])}`;
  if (merged.length === 0) return output.err(`wrote ${out}: check it, then: ${validate}`);
  output.err(
    `wrote ${out}: ${plural(merged.length, 'decision')} to settle: it refuses to run until each entry of its "decisions" is settled and deleted (or answer them: memberctl map init ${shellCommand([init.file])} --interactive --out ${shellCommand([out])} --force); then: ${validate}`,
  );
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
      .action(async (file: string, flags: MapInitFlags) => {
        const output = createOutput();
        const delimiter = flags.delimiter === 'tab' ? '\t' : flags.delimiter;
        if (flags.interactive) checkInteractive(file, flags);
        if (flags.out) await checkOutputPaths([file], [{ flag: '--out', path: flags.out }]);
        const init = await initMapping({
          path: file,
          format: flags.format,
          delimiter,
          encoding: flags.encoding,
          sheet: flags.sheet,
        });
        if (flags.interactive) {
          for (const note of init.notes) output.err(`note: ${note}`);
          init.notes = [];
          try {
            await untilCtrlC((signal) =>
              askDecisions(init, { input: cliIo().stdin, output: cliIo().stderr as NodeJS.WriteStream }, signal),
            );
          } catch (error) {
            if (!(error instanceof PromptInterrupted)) throw error;
            output.err('\ninterrupted at the prompt: nothing was written');
            result.exitCode = exitCodeFor('cancelled');
            return;
          }
        }
        const text = `${JSON.stringify(init.mapping, null, 2)}\n`;
        if (flags.out)
          await writeOutputFile(flags.out, 'mapping', text, {
            noClobber: true,
            force: flags.force,
            mode: 0o644 & ~process.umask(),
          });
        if (flags.json)
          output.out(
            JSON.stringify({
              file: init.file,
              format: init.format,
              out: flags.out ?? null,
              mapping: init.mapping,
              notes: init.notes,
              decisions: init.decisions.map(({ key, field, kind, question, column, samples }) => ({
                key,
                field,
                kind,
                question,
                column: column ?? null,
                samples,
              })),
            }),
          );
        else if (!flags.out) cliIo().stdout.write(text);
        if (!flags.json) renderInitSummary(init, flags.out, output);
        result.exitCode = exitCodeFor('ok');
      }),
  );
  return map;
}
