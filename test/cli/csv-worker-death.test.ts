/**
 * The CSV parsing worker dying, through the whole command line in-process (test/cli/run-in-process.ts): here out of
 * memory for real, its heap held to 16 MB by MEMBERCTL_CSV_WORKER_HEAP_MB (in the run's own environment) against a
 * 15 MB cell. Only the worker's isolate runs out: the run stops, not as an internal error. The rows confirmed
 * before it are counted, exit 4, the journal kept, the cause named with the way out (MEMBERCTL_CSV_WORKER=never)
 * and the --resume command, which then finishes the file exactly. A worker that fails as it starts stays spawned
 * (test/e2e/csv-worker-death.test.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bucketSum, HEADER, isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { row } from './csv-worker-files.js';
import { runInProcess } from './run-in-process.js';

describe('the CSV worker dies', () => {
  it('out of memory after 3,000 rows: counts, exit 4, the cause and the way out; --resume finishes exactly', async () => {
    const dir = tempDir();
    const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always', MEMBERCTL_CSV_WORKER_HEAP_MB: '16' });
    try {
      const file = join(dir, 'members.csv');
      const lines = [HEADER];
      for (let r = 1; r <= 3000; r++) lines.push(row(r));
      lines.push(`huge,huge@example.com,${'x'.repeat(15 * 1024 * 1024)},true,2024-01-05T09:00:00Z`);
      for (let r = 3001; r <= 3500; r++) lines.push(row(r));
      writeFileSync(file, `${lines.join('\n')}\n`);
      const data = join(dir, 'sandbox.ndjson');
      const args = ['import', file, '--sandbox', '--sandbox-data', data, '--json'];

      const died = await runInProcess(args, env);
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

      const resumed = await runInProcess([...args, '--resume'], { ...env, MEMBERCTL_CSV_WORKER: 'never' });
      expect(resumed.code, resumed.stderr).toBe(3); // the huge row is invalid (firstName too long), all others in
      const rest = JSON.parse(resumed.stdout);
      expect(rest).toMatchObject({ rows: 3501, invalid: 1, importedCount: 3500, failed: 0, resumedRecords: 3000 });
    } finally {
      for (const path of [dir, env.HOME!]) rmSync(path, { recursive: true, force: true });
    }
  });
});
