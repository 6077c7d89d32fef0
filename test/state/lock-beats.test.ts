/**
 * The lock's beats move into the CSV worker while it runs and back to a renewer thread when it ends (issue 28: one
 * worker isolate less, ~8 MB of a run's peak), and they never stop for a lease on the way. Its own process (vitest's
 * isolated project): lease.ts keeps one renewer per process, and this counts the worker threads started.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { csvWorkerEntry } from '../../src/io/csv-worker-client.js';
import { renew, timingOf, watchLease } from '../../src/state/lease.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-beats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every worker this process starts, in order (the renewers and the CSV worker). */
const started: Worker[] = [];
process.on('worker', (worker: Worker) => started.push(worker));

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`still waiting for ${what}`);
    await sleep(10);
  }
}

const ended = (worker: Worker | undefined) => worker !== undefined && worker.threadId === -1;
const beatOf = (path: string) => Number((JSON.parse(readFileSync(path, 'utf8')) as { beat: string }).beat);

describe('lock beats', () => {
  it('move into the CSV worker while it runs (the renewer ends) and back to a renewer when it ends', async () => {
    const path = join(dir, 'journal.lock');
    const head = '{"id":"held-here","beat":"';
    writeFileSync(path, `${head}0000000000"}`);
    const timing = timingOf(1200); // a beat every 100 ms
    const lost: string[] = [];
    const lock = { id: 'held-here', path, ino: statSync(path).ino, offset: head.length };
    const beats = renew(lock, timing, () => lost.push(lock.id));
    const watch = () => watchLease(path, readFileSync(path, 'utf8'), () => true, timing);

    await until(() => started.length === 1, 'the renewer');
    const [firstRenewer] = started;
    expect(await watch()).toBe('renewed');

    const entry = csvWorkerEntry(undefined, true, 'always');
    expect(entry, 'the CSV worker is built (npm run build)').toBeDefined();
    const csvWorker = new Worker(entry!, { workerData: { file: 'members.csv', delimiter: ',' } });
    await until(() => ended(firstRenewer), 'the renewer to end once the CSV worker beats');
    const handedOver = beatOf(path);
    expect(await watch()).toBe('renewed');
    expect(await watch()).toBe('renewed');
    expect(beatOf(path)).toBeGreaterThan(handedOver); // on from the renewer's count: every beat is a change

    await csvWorker.terminate();
    await until(() => started.length === 3, 'a renewer again');
    expect(started[2]).not.toBe(csvWorker);
    expect(await watch()).toBe('renewed');
    expect(lost).toEqual([]);

    beats.stop();
    expect(await watch()).toBe('lapsed'); // released: nobody beats it any more
  });
});
