/**
 * The heap settings hold for the whole run: a worker thread's start resets V8's flags, so the young generation's
 * cap (and --heap-growing-percent) would be lost the moment the CSV worker or the lock renewer starts. Run in a
 * fresh node process (a test worker's heap has grown already), on the built module the launcher loads.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { YOUNG_CAP_BYTES } from '../../src/heap-flags.js';

const HEAP_FLAGS = join(import.meta.dirname, '..', '..', 'dist', 'heap-flags.js');

/** Allocates records that survive a few scavenges, before and after a worker starts; prints the largest young generation seen. */
const script = (keep: boolean) => `
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
const { applyHeapFlags, keepHeapFlagsAcross } = await import(${JSON.stringify(HEAP_FLAGS)});
applyHeapFlags();
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
const window = [];
let largest = 0;
async function allocate(steps) {
  for (let step = 0; step < steps; step++) {
    for (let i = 0; i < 20000; i++) window.push({ n: i, text: 'row ' + i });
    if (window.length > 120000) window.splice(0, 20000);
    largest = Math.max(largest, young());
    await new Promise((resolve) => setImmediate(resolve));
  }
}
// the cap is reached first, as in a run (its modules and first records), then the worker starts
await allocate(150);
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
${keep ? 'keepHeapFlagsAcross(worker);' : ''}
await new Promise((resolve) => worker.once('online', resolve));
worker.unref();
await allocate(300);
console.log(largest);
`;

async function largestYoung(keep: boolean): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script(keep)]);
  return Number(stdout.trim());
}

describe('heap flags across a worker start', () => {
  it('keep the young generation at its cap after a worker thread starts', async () => {
    expect(await largestYoung(true)).toBeLessThanOrEqual(YOUNG_CAP_BYTES);
  });

  it('(the reason: without them set again, it grows past the cap)', async () => {
    expect(await largestYoung(false)).toBeGreaterThan(YOUNG_CAP_BYTES);
  });
});
