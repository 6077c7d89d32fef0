/**
 * Unix manners: a reader that closes stdout early (`| head`) ends the run quietly; control characters from the
 * data never reach the terminal raw; a token no HTTP header can carry is a usage error before anything is sent.
 * The pipe closing is a spawned process's; the rest is the whole command line in-process (test/cli/run-in-process.ts).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedServer } from '../http/scripted-server.js';
import { CLI, isolatedEnv, tempDir } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

function invalidCsv(rows: number): string {
  const lines = ['memberId,isActive,createdAt'];
  for (let r = 1; r <= rows; r++) lines.push(`m${r},maybe,2024-01-01`);
  const path = join(tempDir(), 'big.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Runs the CLI and closes its stdout after the first chunk, as `| head -c 1` would. */
function closedEarly(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: isolatedEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('stdout closed early', () => {
  it.each(['--json', '--no-color'])(
    'validate big.csv %s | head: exits quietly (141, as SIGPIPE would), no "internal error"',
    async (flag) => {
      const result = await closedEarly(['validate', invalidCsv(40_000), flag, '--show', '100000']);
      expect(result.stderr).not.toMatch(/internal error|EPIPE/);
      expect(result.code).toBe(141);
    },
  );
});

describe('control characters from the data', () => {
  it('are escaped in the invalid-records table and in error messages', async () => {
    const path = join(tempDir(), 'evil.csv');
    writeFileSync(path, `memberId,isActive,createdAt\nm\u001b]0;pwned\u0007\u001b[2J1,perhaps\u001b[31m,2024-01-01\n`);
    const result = await runInProcess(['validate', path], isolatedEnv());
    expect(result.code).toBe(3);
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain('\\u001b');
  });

  it('--json stays valid JSON when the data holds characters JSON leaves raw (DEL, C1, bidi overrides)', async () => {
    const path = join(tempDir(), 'c1.csv');
    writeFileSync(path, 'memberId,isActive,createdAt\nm\u0085\u202e\u007f1,perhaps,2024-01-01\n');
    const result = await runInProcess(['validate', path, '--json'], isolatedEnv());
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).invalidRecords[0].memberId).toBe('m\u0085\u202e\u007f1');
  });
});

describe('a token an HTTP header cannot carry', () => {
  it.each([
    ['a newline inside', 'abc\u0001def-ghi'],
    ['a non-ASCII character', 'tökén-0123456789'],
  ])('%s: exit 2 "bad token", nothing sent', async (_name, token) => {
    const server = await startScriptedServer([]);
    try {
      const path = join(tempDir(), 'one.csv');
      writeFileSync(path, 'memberId,isActive,createdAt\nm1,true,2024-01-01\n');
      const result = await runInProcess(
        ['import', path, '--base-url', server.url.href, '--no-journal'],
        isolatedEnv({ MEMBERCTL_TOKEN: token }),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/bad token/);
      expect(result.stderr).not.toContain(token);
      expect(server.received).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('config check names it too, without the token', async () => {
    const result = await runInProcess(
      ['config', 'check', '--no-probe', '--base-url', 'http://127.0.0.1:9/'],
      isolatedEnv({ MEMBERCTL_TOKEN: 'abc\u0001def-ghi' }),
    );
    expect(result.stdout).toMatch(/FAIL +bad token in member token: character 4 is U\+0001/);
    expect(result.stdout).not.toContain('abc');
  });
});
