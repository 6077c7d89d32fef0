/**
 * The CSV parsing worker dying (here: out of memory for real, its heap held to 16 MB by MEMBERCTL_CSV_WORKER_HEAP_MB
 * against a 15 MB cell) is the run stopping, not an internal error: the rows confirmed before it are counted,
 * exit 4, the journal kept, the cause named with the way out (MEMBERCTL_CSV_WORKER=never) and the --resume
 * command, which then finishes the file exactly. A worker that fails as it starts (a module preloaded into worker
 * threads through NODE_OPTIONS, which only a process of its own can be given) stops the run the same way. That a
 * worker gives what the main thread gives is tested in-process: test/cli/csv-worker-path.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trickyCsv } from '../cli/csv-worker-files.js';
import { bucketSum, HEADER, isolatedEnv, runCli, tempDir } from './import-helper.js';

const row = (r: number) => `m${r},m${r}@example.com,Name${r},true,2024-01-05T09:00:00Z`;

describe('the CSV worker dies', () => {
  it('out of memory after 3,000 rows: counts, exit 4, the cause and the way out; --resume finishes exactly', async () => {
    const dir = tempDir();
    const file = join(dir, 'members.csv');
    const lines = [HEADER];
    for (let r = 1; r <= 3000; r++) lines.push(row(r));
    lines.push(`huge,huge@example.com,${'x'.repeat(15 * 1024 * 1024)},true,2024-01-05T09:00:00Z`);
    for (let r = 3001; r <= 3500; r++) lines.push(row(r));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const data = join(dir, 'sandbox.ndjson');
    const args = ['import', file, '--sandbox', '--sandbox-data', data, '--json'];
    const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always', MEMBERCTL_CSV_WORKER_HEAP_MB: '16' });

    const died = await runCli(args, env);
    expect(died.code, died.stderr).toBe(4);
    const report = JSON.parse(died.stdout);
    expect(report.importedCount).toBe(3000);
    expect(report.rows).toBe(3000);
    expect(bucketSum(report)).toBe(report.rows);
    expect(report.error).toMatchObject({ code: 'reader-failed', message: expect.stringContaining('out of memory') });
    expect(report.nextCommand).toMatch(/--resume$/);
    expect(died.stderr).not.toContain('internal error');
    expect(died.stderr).toContain('error: the CSV parsing worker ran out of memory while reading');
    expect(died.stderr).toContain('MEMBERCTL_CSV_WORKER=never memberctl import');

    const resumed = await runCli([...args, '--resume'], { ...env, MEMBERCTL_CSV_WORKER: 'never' });
    expect(resumed.code, resumed.stderr).toBe(3); // the huge row is invalid (firstName too long), all others in
    const rest = JSON.parse(resumed.stdout);
    expect(rest).toMatchObject({ rows: 3501, invalid: 1, importedCount: 3500, failed: 0, resumedRecords: 3000 });
  });

  it('a worker that fails is the run stopping: one error naming the way out (parsing on the main thread), exit 4, no hang', async () => {
    const dir = tempDir();
    const failing = join(dir, 'failing-worker.mjs');
    writeFileSync(
      failing,
      "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) throw new Error('no worker today');\n",
    );
    const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always', NODE_OPTIONS: `--import ${failing}` });
    const r = await runCli(['import', trickyCsv(dir), '--sandbox', '--no-journal'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/error: the CSV parsing worker failed while reading: no worker today/);
    expect(r.stderr).toMatch(/hint: .*MEMBERCTL_CSV_WORKER=never/);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
