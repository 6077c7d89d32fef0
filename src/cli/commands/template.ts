/** `memberctl template`: an import file to map a CRM export onto, and the table of every field's limits. */
import { Command, Option } from 'commander';
import { createOutput } from '../output.js';
import type { CommandResult } from '../program.js';
import { exitCodeFor } from '../exit-codes.js';
import { cliIo } from '../io.js';

interface TemplateOptions {
  format: 'csv' | 'json';
  out?: string;
  force?: boolean;
  fields?: boolean;
}

export function templateCommand(result: CommandResult): Command {
  return new Command('template')
    .description(
      'write an import file with every field and one example record (CSV or JSON), or the table of field limits',
    )
    .addOption(new Option('--format <format>', 'file format').choices(['csv', 'json']).default('csv'))
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--force', 'overwrite --out if it exists')
    .option('--fields', 'print every field with its type and limits (a Markdown table) instead of a template')
    .addHelpText(
      'after',
      `
Columns are the API's field names; nested values use dotted paths (address.city), and metadata.<key> /
customProperties.<key> columns may use any key. Replace the example row with your data, then:

Examples:
  $ memberctl template --out members.csv && memberctl validate members.csv
  $ memberctl template --format json --out members.json
  $ memberctl template --fields                 the limits of every field (length, format, required)`,
    )
    .action(async (options: TemplateOptions) => {
      // the schemas are loaded when it runs: --help and the other commands do not pay for them
      const { fieldLimitsMarkdown, templateColumns, templateCsv, templateJson } = await import(
        '../../core/template/template.js'
      );
      const output = createOutput();
      if (options.fields) {
        output.out(fieldLimitsMarkdown());
        result.exitCode = exitCodeFor('ok');
        return;
      }
      const text = options.format === 'json' ? templateJson() : templateCsv();
      if (!options.out) {
        cliIo().stdout.write(text);
        result.exitCode = exitCodeFor('ok');
        return;
      }
      // a template holds no personal data: readable by others like any file the user makes (0644 less the umask)
      const { writeOutputFile } = await import('../../io/output-file.js');
      await writeOutputFile(options.out, 'template', text, {
        noClobber: true,
        force: options.force,
        mode: 0o644 & ~process.umask(),
      });
      output.err(
        `wrote ${options.out}: ${options.format === 'json' ? `${(await import('../../schemas/index.js')).MEMBER_FIELDS.length} fields` : `${templateColumns().length} columns`} and one example record; ` +
          'field limits: memberctl template --fields',
      );
      result.exitCode = exitCodeFor('ok');
    });
}
