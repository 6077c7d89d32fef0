import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests that must have a fresh process per file: the end-to-end tests spawn the CLI and kill it (a stray child or
// signal handler must not reach another file), the lock tests count takers within one process, the lock race
// spawns processes on hostnames of their own and kills them, the takeover's fsync test mocks a module (a
// mock cannot replace a module another file of a shared worker already loaded), and the lock beats' test counts the
// worker threads its process starts (lease.ts keeps one renewer per process).
const ISOLATED = [
  'test/e2e/**/*.test.ts',
  'test/state/lock.test.ts',
  'test/state/lock-race.test.ts',
  'test/state/lock-takeover-sync.test.ts',
  'test/state/lock-beats.test.ts',
  // sets MEMBERCTL_LOCK_LEASE_SECONDS in process.env (the lease is read there): a process of its own
  'test/state/lock-lease.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single worker on 2 cores, which leaves a core idle while
    // an end-to-end test waits for the CLI it spawned. Files run two at a time here whatever the core count, so
    // the suite keeps a second core busy and stays steady when another job holds both (docs/performance.md).
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        // In-process tests share their worker's module cache across files (no state is global: tests build
        // their own sandboxes, clients and files), which spares a module load per file — about half their CPU.
        test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      // A spawned CLI takes ~0.3-0.5 s of CPU to start; on a machine whose cores are taken by other work a test of
      // a dozen spawns can take a minute. These timeouts only catch hangs: no test waits for a time to pass.
      { extends: true, test: { name: 'isolated', include: ISOLATED, testTimeout: 120_000, hookTimeout: 60_000 } },
    ],
  },
});
