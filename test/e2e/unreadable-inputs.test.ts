/**
 * Inputs that are no file to read: a directory, a FIFO no one writes to, /dev/zero, a file without read
 * permission. Each is one error naming it with a hint and exit 2, or (a FIFO waits for its writer, legitimately)
 * Ctrl-C ends the wait at once with 130; never a hang or a stack trace.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readlinkSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from './config-cli-helper.js';
import { CLI, isolatedEnv, runCli, tempDir, until } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = isolatedEnv();

/** Exit 2, nothing on stdout, "error: …" naming the file on one line, then a hint line; no stack trace. */
function expectOneLineError(result: RunResult, file: string, pattern: RegExp): void {
  expect(result.stderr).not.toMatch(/^\s+at |internal error/m);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(pattern);
  expect(lines[1]).toMatch(/^hint: /);
}

describe('inputs that are no file to read', () => {
  it.each([['validate'], ['import', '--sandbox']])('%s on a directory', async (...args) => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder, { recursive: true });
    expectOneLineError(await runInProcess([...args, folder], env), folder, /is a directory, not a file/);
  });

  it.runIf(existsSync('/dev/zero'))(
    'validate and import /dev/zero (any format) are refused by their first bytes, not read forever',
    async () => {
      for (const args of [
        ['validate'],
        ['validate', '--format', 'ndjson'],
        ['validate', '--format', 'json'],
        ['import', '--sandbox', '--format', 'ndjson'],
      ]) {
        expectOneLineError(
          await runInProcess([...args, '/dev/zero'], env),
          '/dev/zero',
          /is not text: its first \d+ bytes are all zero/,
        );
      }
      const zeros = join(dir, 'never-written.csv'); // a file whose writing never finished
      writeFileSync(zeros, Buffer.alloc(4096));
      expectOneLineError(await runInProcess(['validate', zeros], env), zeros, /is not text/);
    },
    60_000,
  );

  it.runIf(process.getuid?.() !== 0)('a file without read permission (skipped as root, who may read it)', async () => {
    const locked = join(dir, 'locked.csv');
    writeFileSync(locked, 'memberId\nm1\n');
    chmodSync(locked, 0o200);
    expectOneLineError(await runInProcess(['validate', locked], env), locked, /permission denied/);
  });
});

describe('a FIFO', () => {
  it('is read whole once its writer comes, and its close is the end', async () => {
    const fifo = join(dir, 'written.fifo');
    execFileSync('mkfifo', [fifo]);
    const running = runCli(['validate', fifo, '--json'], env);
    // (this open waits for the CLI's read side, as any writer's does)
    await writeFile(
      fifo,
      'memberId,email,firstName,isActive,createdAt\nm1,m1@example.com,A,true,2024-01-05T09:00:00Z\nm2,m2@example.com,B,maybe,2024-01-05T09:00:00Z\n',
    );
    const result = await running;
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 2, valid: 1, invalid: 1 });
  }, 60_000);
});

describe('a FIFO no one writes to', () => {
  /** The CLI on a FIFO: resolves once it holds the FIFO open (its wait for a writer has begun). */
  async function waitingOn(
    args: string[],
  ): Promise<{ interrupt(): Promise<{ code: number | null; signal: string | null; stderr: string; stdout: string }> }> {
    const fifo = join(dir, `waiting-${args[0]}.fifo`);
    rmSync(fifo, { force: true });
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [CLI, ...args, fifo], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    const holdsFifo = () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`) === fifo);
      } catch {
        return false;
      }
    };
    await until(holdsFifo, `${args[0]} to open the FIFO`).catch((error: unknown) => {
      child.kill('SIGKILL'); // (a CLI stuck in a blocking open(2) must not outlive the test)
      throw error;
    });
    return {
      async interrupt() {
        child.kill('SIGINT');
        return { ...(await ended), stderr, stdout };
      },
    };
  }

  it.runIf(existsSync('/proc/self/fd'))(
    'import: Ctrl-C ends the wait at once, exit 130, naming the input; nothing sent',
    async () => {
      const run = await waitingOn(['import', '--sandbox']);
      const result = await run.interrupt();
      expect(result.code).toBe(130);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(2); // no "waiting for requests in flight": there can be none
      expect(lines[0]).toMatch(
        /^error: interrupted while waiting for .*waiting-import\.fifo: nothing was read or sent$/,
      );
      expect(lines[1]).toMatch(/^hint: /);
      expect(result.stdout).toBe('');
    },
    60_000,
  );

  it.runIf(existsSync('/proc/self/fd'))(
    'subscribe --from: Ctrl-C ends the wait at once, exit 130, naming the FIFO',
    async () => {
      const run = await waitingOn(['subscribe', 'cust-1', '--sandbox', '--from']);
      const result = await run.interrupt();
      expect(result.code).toBe(130);
      expect(result.stderr.trim()).toMatch(
        /^interrupted while reading --from \S*waiting-subscribe\.fifo: nothing was sent$/,
      );
    },
    60_000,
  );

  it.runIf(existsSync('/proc/self/fd'))(
    "validate: Ctrl-C ends the wait at once (the shell's 130: killed by SIGINT)",
    async () => {
      const run = await waitingOn(['validate']);
      const result = await run.interrupt();
      expect(result.code === 130 || result.signal === 'SIGINT').toBe(true);
      expect(result.stderr).toMatch(
        /^interrupted while opening .*waiting-validate\.fifo: nothing was read or written$/m,
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    },
    60_000,
  );
});
