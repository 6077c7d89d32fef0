/** What `memberctl map init FILE` does, loaded only when it runs (map.ts declares its flags and help). */
import { initMapping, type MapInitResult } from '../../core/map-init/map-init.js';
import { writeOutputFile } from '../../io/output-file.js';
import { checkOutputPaths } from '../../io/output-paths.js';
import { shellCommand } from '../../core/shell-command.js';
import { createOutput, type Output } from '../output.js';
import { exitCodeFor } from '../exit-codes.js';
import { UsageError } from '../../errors.js';
import { askDecisions } from './map-interactive.js';
import { untilCtrlC } from './subscribe-gather.js';
import { PromptInterrupted } from './subscribe-prompt.js';
import { cliIo } from '../io.js';
import { maskKnownSecrets } from '../run-secrets.js';
import type { MapInitFlags } from './map.js';

/** The exit code of one run. */
export async function runMapInit(file: string, flags: MapInitFlags): Promise<number> {
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
    nullToken: flags.nullToken,
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
      return exitCodeFor('cancelled');
    }
  }
  // its columns are the input's headers: a token file given as the input by mistake must not be copied out
  const text = maskKnownSecrets(`${JSON.stringify(init.mapping, null, 2)}\n`);
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
  return exitCodeFor('ok');
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
