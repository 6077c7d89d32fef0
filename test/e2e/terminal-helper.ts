/**
 * Runs the built CLI on a real pseudo-terminal (util-linux `script`), so prompts, Ctrl-C and /dev/tty behave as
 * they do for a person: a Ctrl-C written to the terminal is turned into SIGINT by the terminal driver itself.
 */
import { spawn, spawnSync } from 'node:child_process';
import { CLI } from './config-cli-helper.js';

export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** When the terminal shows `when` (after what was already matched), type `send`. */
export interface Turn {
  when: string;
  send: string;
}

export interface TerminalRun {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together, with \r\n line ends). */
  screen: string;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** `stdinCommand`, when given, is a shell command whose output is piped into memberctl (e.g. `printf … |`). */
export function runOnTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  turns: Turn[],
  stdinCommand?: string,
): Promise<TerminalRun> {
  const command = `${stdinCommand ? `${stdinCommand} | ` : ''}${[process.execPath, CLI, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let screen = '';
  let seen = 0;
  const queue = [...turns];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    while (queue.length > 0) {
      const at = screen.indexOf(queue[0]!.when, seen);
      if (at < 0) break;
      seen = at + queue[0]!.when.length;
      child.stdin.write(queue.shift()!.send);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen: screen.replaceAll('\r\n', '\n') }));
  });
}
