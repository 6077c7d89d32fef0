/**
 * The entry point: builds the program, runs it, and is the only place that calls process.exit.
 * Commands report their exit code through `CommandResult`; thrown typed errors carry a result category,
 * which the one table (exit-codes.ts) turns into a code.
 */
import { Command, CommanderError } from 'commander';
import { isMemberctlError } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import { createOutput, errorToJson, renderError } from './output.js';
import { buildProgram, type CommandResult } from './program.js';
import { createJsonLog, logError, logFormatFromArgv } from './log-format.js';

/** 128 + SIGPIPE (13). */
const EXIT_BROKEN_PIPE = 141;

async function main(argv: string[]): Promise<number> {
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

// The reader of stdout (or stderr) went away (`memberctl validate big.csv --json | head`): stop quietly with the
// status a tool killed by SIGPIPE has, as `cat` or `grep` would; nothing is left to tell anyone.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_BROKEN_PIPE);
    throw error;
  });
}

const code = await main(process.argv);
// Let stdout drain before exiting: a piped --json result must arrive whole.
process.stdout.write('', (error) =>
  process.exit((error as NodeJS.ErrnoException | null)?.code === 'EPIPE' ? EXIT_BROKEN_PIPE : code),
);
