/**
 * A CSV parsing worker that fails as it starts (a module preloaded into worker threads through NODE_OPTIONS, which
 * only a process of its own can be given) is the run stopping, not an internal error: exit 4, one error naming the
 * way out (MEMBERCTL_CSV_WORKER=never). The in-process half: a worker that runs out of memory midway
 * (test/cli/csv-worker-death.test.ts), and a worker giving what the main thread gives
 * (test/cli/csv-worker-path.test.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trickyCsv } from '../cli/csv-worker-files.js';
import { isolatedEnv, runCli, tempDir } from './import-helper.js';

describe('the CSV worker dies', () => {
  it('a worker that fails is the run stopping: one error naming the way out (parsing on the main thread), exit 4, no hang', async () => {
    const dir = tempDir();
    const failing = join(dir, 'failing-worker.mjs');
    writeFileSync(
      failing,
      "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) throw new Error('no worker today');\n",
    );
    const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always', NODE_OPTIONS: `--import ${failing}` });
    try {
      const r = await runCli(['import', trickyCsv(dir), '--sandbox', '--no-journal'], env);
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/error: the CSV parsing worker failed while reading: no worker today/);
      expect(r.stderr).toMatch(/hint: .*MEMBERCTL_CSV_WORKER=never/);
      expect(r.stderr).not.toContain('internal error');
      expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      for (const path of [dir, env.HOME!]) rmSync(path, { recursive: true, force: true });
    }
  });
});
