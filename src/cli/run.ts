/**
 * One run of the command line, start to end: builds the program, runs it and returns the exit code. Commands
 * report their exit code through `CommandResult`; thrown typed errors carry a result category, which the one
 * table (exit-codes.ts) turns into a code. main.ts runs it on the process; tests run it in-process with their own
 * arguments, environment and streams (io.ts).
 */
import { Command, CommanderError } from 'commander';
import { isMemberctlError } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import { type CliIo, withCliIo } from './io.js';
import { createOutput, errorToJson, renderError } from './output.js';
import { buildProgram, type CommandResult } from './program.js';
import { createJsonLog, logError, logFormatFromArgv } from './log-format.js';
import { maskedStream, tokensKnownAtStart } from './run-secrets.js';

export function runMemberctl(io: CliIo): Promise<number> {
  // every token the run knows of is masked in all it writes, from its first line (run-secrets.ts)
  const secrets = new Set(tokensKnownAtStart(io));
  const masked = { ...io, stdout: maskedStream(io.stdout, secrets), stderr: maskedStream(io.stderr, secrets) };
  return withCliIo(masked, () => run(io.argv), secrets);
}

async function run(argv: readonly string[]): Promise<number> {
  const result: CommandResult = { exitCode: exitCodeFor('ok') };
  const program: Command = buildProgram(result);
  try {
    await program.parseAsync(argv);
    return result.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes were already printed by commander.
      return exitCodeFor(error.exitCode === 0 ? 'ok' : 'usage');
    }
    const wantsJson = argv.includes('--json');
    const output = createOutput({ noColor: argv.includes('--no-color') });
    if (wantsJson) output.out(JSON.stringify(errorToJson(error)));
    // --log-format json: stderr stays one JSON object per line, the fatal error included.
    const exitCode = exitCodeFor(isMemberctlError(error) ? error.category : 'internal');
    if (logFormatFromArgv(argv) === 'json') {
      const log = createJsonLog();
      logError(log, error);
      log.log('error', 'finished', { exitCode }); // a run that stopped before its summary still ends with its code
    } else renderError(error, output);
    return exitCode;
  }
}
