/**
 * Issue 26 item 1 end to end: a date format with 12 spaces against cells of 100k spaces, from a pipe that stays
 * open. Each cell is refused at once (too long; and the format is read in one pass), records stream out as they
 * are read, and Ctrl-C ends the run. The old reader (a regex with \s+ per space) never finished the first cell,
 * and SIGINT went unanswered.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it, onTestFinished } from 'vitest';
import { CLI, isolatedEnv, tempDir } from './import-helper.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('hostile cells stream out as invalid, and Ctrl-C is answered while the pipe is open', async () => {
  const map = join(dir, 'map.json');
  writeFileSync(
    map,
    JSON.stringify({
      columns: {
        Id: 'memberId',
        Created: { field: 'createdAt', format: `dd.MM.yyyy${' '.repeat(12)}HH:mm`, timeZone: 'UTC' },
      },
      fields: { isActive: { value: true } },
    }),
  );
  const child = spawn(process.execPath, [CLI, 'validate', '-', '--map', map, '--json'], {
    env: isolatedEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  child.stdin.on('error', () => undefined); // the run ends while rows are still being written
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const seen = new Promise<void>((resolve) =>
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if ((stdout.match(/"record":/g) ?? []).length >= 50) resolve();
    }),
  );
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  child.stdin.write('Id,Created\n');
  for (let i = 0; i < 60; i++) child.stdin.write(`m${i},01.01.2024${' '.repeat(100_000)}10:00\n`);
  await seen; // (the pipe stays open: the run waits for more rows)
  expect(stdout).toContain('"message":"too long (100,015 characters): a date is at most 100');
  child.kill('SIGINT');
  const { code, signal } = await ended;
  expect(code === 130 || signal === 'SIGINT', stderr).toBe(true);
  expect(stderr).not.toMatch(/^\s+at /m);
});
