/**
 * The whole command line, run in-process: `memberctl ARGS` with this environment and standard input, through the
 * entry point main.ts runs (runMemberctl), its stdout, stderr and exit code captured. The same answer as spawning
 * the built CLI (test/e2e/config-cli-helper.ts's runCli), without a process start (~0.4 s of CPU each). What only a
 * process shows (signals, kill -9, pipes closing, TTYs, locks across processes, V8 flags) stays spawned.
 * process.env is never read or written by the run: `env` is the run's whole environment.
 */
import { PassThrough, Writable } from 'node:stream';
import { runMemberctl } from '../../src/cli/run.js';
import type { RunResult } from '../e2e/config-cli-helper.js';

/** A stream that keeps what is written to it, as a string. */
class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

export async function runInProcess(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  const stdin = new PassThrough();
  stdin.end(input ?? '');
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runMemberctl({ argv: [process.execPath, 'memberctl', ...args], env, stdin, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
