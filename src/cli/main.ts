/**
 * The entry point: runs the command line on this process (run.ts) and is the only place that calls process.exit.
 */
import { runMemberctl } from './run.js';

/** 128 + SIGPIPE (13). */
const EXIT_BROKEN_PIPE = 141;

// The reader of stdout (or stderr) went away (`memberctl validate big.csv --json | head`): stop quietly with the
// status a tool killed by SIGPIPE has, as `cat` or `grep` would; nothing is left to tell anyone.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_BROKEN_PIPE);
    throw error;
  });
}

const code = await runMemberctl({
  argv: process.argv,
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Let stdout drain before exiting: a piped --json result must arrive whole.
process.stdout.write('', (error) =>
  process.exit((error as NodeJS.ErrnoException | null)?.code === 'EPIPE' ? EXIT_BROKEN_PIPE : code),
);
