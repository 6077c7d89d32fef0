/**
 * Where the command line writes: results to stdout, progress and diagnostics to stderr.
 * Color follows chalk's detection (NO_COLOR, FORCE_COLOR, TTY) and the --no-color flag.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { isMemberctlError } from '../errors.js';
import { cliIo, runNoColor, setRunNoColor } from './io.js';
import { printable } from './printable.js';

export interface Output {
  /** Colors for stderr (diagnostics, human summaries are drawn on stdout with `out`). */
  color: ChalkInstance;
  out(text: string): void;
  err(text: string): void;
  warn(text: string): void;
  /** True when stderr is an interactive terminal (progress bars, prompts). */
  stderrIsTTY: boolean;
  /** Set by --log-format json (log-format.ts): an error is one log line {level, code, message, hint}, not two lines of text. */
  logError?(error: unknown): void;
}

export function colorEnabled(noColorFlag: boolean): boolean {
  const { env, stdout } = cliIo();
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return Boolean(stdout.isTTY);
}

/** --no-color, set once by the program's preAction hook for every output of the run (not through process.env). */
export function useGlobalOutputFlags(flags: { noColor: boolean }): void {
  setRunNoColor(flags.noColor);
}

export function createOutput(options: { noColor?: boolean } = {}): Output {
  // Diagnostics quote the input (an unknown column is its header's text): given the token file as the input by
  // mistake, they would print the token. The run's stdout and stderr mask every token it knows (run-secrets.ts).
  const { stdout, stderr } = cliIo();
  const styled = colorEnabled(options.noColor ?? runNoColor());
  const color = new Chalk({ level: styled ? 1 : 0 });
  // Every line goes out printable: control characters from the data are escaped here, once for all renderers.
  const line = (text: string) => printable(text.endsWith('\n') ? text : `${text}\n`, styled);
  return {
    color,
    out: (text) => void stdout.write(line(text)),
    err: (text) => void stderr.write(line(text)),
    warn: (text) => void stderr.write(line(`${color.yellow('warning:')} ${text}`)),
    stderrIsTTY: Boolean(stderr.isTTY),
  };
}

/** One line (plus a hint line) for a human; never a stack trace unless MEMBERCTL_DEBUG is set. */
export function renderError(error: unknown, output: Output): void {
  if (output.logError) return output.logError(error);
  const { color } = output;
  if (isMemberctlError(error) && error.problems && error.problems.length > 1) {
    // one line each, its hint on the same line: a listing to work through, not a wall of alternating lines
    for (const problem of error.problems)
      output.err(
        `${color.red('error:')} ${problem.message}${problem.hint ? color.dim(` — hint: ${problem.hint}`) : ''}`,
      );
  } else if (isMemberctlError(error)) {
    output.err(`${color.red('error:')} ${error.message}`);
    if (error.hint) output.err(`${color.dim('hint:')} ${error.hint}`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    output.err(`${color.red('internal error:')} ${message}`);
    output.err(
      `${color.dim('hint:')} this is a bug in memberctl; run again with MEMBERCTL_DEBUG=1 for details and report it.`,
    );
  }
  if (cliIo().env.MEMBERCTL_DEBUG && error instanceof Error && error.stack) output.err(error.stack);
}

/** The --json shape of an error: {error: {code, message, hint, details}}. */
export function errorToJson(error: unknown): { error: Record<string, unknown> } {
  if (isMemberctlError(error)) {
    return {
      error: {
        code: error.code,
        message: error.message,
        hint: error.hint,
        details: error.details,
        problems: error.problems,
      },
    };
  }
  return {
    error: {
      code: 'internal',
      message: error instanceof Error ? error.message : String(error),
      hint: 'this is a bug in memberctl; run again with MEMBERCTL_DEBUG=1 for details and report it.',
    },
  };
}
