/**
 * What one run of the command line talks to: its arguments, environment and standard streams. A real run talks to
 * its process (main.ts); a test runs the whole command line in-process with its own (test/cli/run-in-process.ts),
 * so it never touches process.env or its worker's stdout, and costs no process start (docs/decisions.md, "Which
 * tests spawn the CLI"). The run's own is held for it in an AsyncLocalStorage: every command and renderer reaches
 * it through `cliIo()` instead of a parameter threaded through each of them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable } from 'node:stream';

/** A standard stream as the CLI uses it: written to, and asked whether it is a terminal (and how wide). */
export type CliWriteStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface CliIo {
  /** As process.argv: node's path and the script's first, then the command line. */
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  stdin: Readable & { isTTY?: boolean };
  stdout: CliWriteStream;
  stderr: CliWriteStream;
}

interface CliRun {
  io: CliIo;
  /** --no-color, set by the program's preAction hook for every output of the run. */
  noColor: boolean;
  /** Every token this run knows of, masked in all it writes (run-secrets.ts). */
  secrets: Set<string>;
}

const runs = new AsyncLocalStorage<CliRun>();
let processRun: CliRun | undefined;

function currentRun(): CliRun {
  const run = runs.getStore();
  if (run) return run;
  processRun ??= {
    io: { argv: process.argv, env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    noColor: false,
    secrets: new Set(),
  };
  return processRun;
}

/** This run's arguments, environment and streams (the process's own outside `withCliIo`). */
export function cliIo(): CliIo {
  return currentRun().io;
}

/** `work`, and everything it starts, runs with `io` as its `cliIo()` and `secrets` as its `runSecrets()`. */
export function withCliIo<T>(io: CliIo, work: () => Promise<T>, secrets = new Set<string>()): Promise<T> {
  return runs.run({ io, noColor: false, secrets }, work);
}

/** The tokens this run knows of, to be masked (run-secrets.ts adds to them and masks with them). */
export function runSecrets(): Set<string> {
  return currentRun().secrets;
}

export function runNoColor(): boolean {
  return currentRun().noColor;
}

export function setRunNoColor(noColor: boolean): void {
  currentRun().noColor = noColor;
}
