/** For import's end-to-end tests: CSV files in a temp folder, and a spawn that can be interrupted mid-run. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, type RunResult } from './config-cli-helper.js';

export { CLI, isolatedEnv, runCli } from './config-cli-helper.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'memberctl-import-'));
}

export const HEADER = 'memberId,email,firstName,isActive,createdAt';

/** A members CSV: row r is m<r>, valid unless `bad(r)` returns replacement cells for it. */
export function membersCsv(
  dir: string,
  rows: number,
  bad: (r: number) => string | undefined = () => undefined,
  name = 'members.csv',
): string {
  const lines = [HEADER];
  for (let r = 1; r <= rows; r++) lines.push(bad(r) ?? `m${r},m${r}@example.com,Name${r},true,2024-01-05T09:00:00Z`);
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export interface Running {
  child: ChildProcess;
  result: Promise<RunResult>;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const result = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, result };
}

/** Polls until `condition` holds (behaviour, not time: the deadline only stops a broken test from hanging). */
export async function until(condition: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > deadlineMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const JSON_KEYS = [
  'rows',
  'invalid',
  'importedCount',
  'updatedCount',
  'skipped',
  'skippedExamples',
  'rejected',
  'failed',
  'duplicateMembers',
  'omittedCells',
  'batches',
  'requests',
  'retries',
  'concurrency',
  'durationMs',
];

export function bucketSum(report: Record<string, unknown>): number {
  const n = (key: string) => report[key] as number;
  return (
    n('invalid') + n('importedCount') + n('updatedCount') + (report.skipped as number) + n('rejected') + n('failed')
  );
}
