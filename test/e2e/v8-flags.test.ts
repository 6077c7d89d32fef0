/**
 * The V8 settings hold for the whole run: a worker thread's start sets the young generation's growth factor back
 * to V8's default, so its cap would be lost the moment the CSV worker or the lock renewer starts. WebAssembly (undici's
 * HTTP parser) stays on its baseline compiler, however long it runs. Run in a
 * fresh node process (a test worker's heap has grown already), on the built module the launcher loads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { YOUNG_CAP_BYTES, youngCapFor } from '../../src/v8-flags.js';

const V8_FLAGS = join(import.meta.dirname, '..', '..', 'dist', 'v8-flags.js');
const LEASE = join(import.meta.dirname, '..', '..', 'dist', 'state', 'lease.js');
const CSV_WORKER = join(import.meta.dirname, '..', '..', 'dist', 'io', 'csv-worker.js');

/** The young generation's size, and records allocated a few at a time that survive a few scavenges (both scripts). */
const ALLOCATE = `
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
`;

/**
 * Allocates records that survive a few scavenges, before and after a worker starts; prints the largest young
 * generation seen. `memoryLimit` stands for the cgroup's (a big one: the cap is 16 MB on any machine).
 */
const script = (keep: boolean, memoryLimit = 2 ** 40, cap = YOUNG_CAP_BYTES) => `
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
const { applyV8Flags, keepV8FlagsAcross } = await import(${JSON.stringify(V8_FLAGS)});
applyV8Flags(${memoryLimit});
${ALLOCATE}
// the cap is reached first, as in a run (its modules and first records), and seen; then the worker starts
while (young() < ${cap}) await allocate(1);
await new Promise((resolve) => setTimeout(resolve, 20));
largest = 0;
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
${keep ? 'keepV8FlagsAcross(worker);' : ''}
await new Promise((resolve) => worker.once('online', resolve));
worker.unref();
await allocate(300);
console.log(largest);
`;

async function largestYoung(keep: boolean, memoryLimit?: number, cap?: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--input-type=module',
    '-e',
    script(keep, memoryLimit, cap),
  ]);
  return Number(stdout.trim());
}

/**
 * After a worker's start, runs a WebAssembly loop hot past the largest tiering budget V8 takes (2^31: each turn of a
 * loop costs its machine code's size, ~18 KB here, ~120k turns) and 8× more; prints whether V8 optimized it
 * (TurboFan). undici's HTTP parser reached the budget in ~1,000 responses.
 */
const wasmScript = (keep: boolean) => `
import { Worker } from 'node:worker_threads';
const { applyV8Flags, keepV8FlagsAcross } = await import(${JSON.stringify(V8_FLAGS)});
applyV8Flags();
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
${keep ? 'keepV8FlagsAcross(worker);' : ''}
await new Promise((resolve) => worker.once('online', resolve));
worker.unref();
// (func (param $n i32) (result i32) (local i32)
//   (loop 3000 × (local.set 1 (i32.add (local.get 0) (i32.const 1)))
//         (br_if 0 (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
//   (local.get 0))
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const step = [0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x01];
const code = [0x01, 0x01, 0x7f, 0x03, 0x40, ...Array.from({ length: 3000 }, () => step).flat(),
  0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x20, 0x00, 0x0b];
const functions = [0x01, ...leb(code.length), ...code];
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0,
  10, ...leb(functions.length), ...functions]);
const { instance } = await WebAssembly.instantiate(bytes);
const f = instance.exports.f;
for (let round = 0; round < 20 && !%IsTurboFanFunction(f); round++) {
  f(50000);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
console.log(%IsTurboFanFunction(f));
`;

async function wasmOptimized(keep: boolean): Promise<boolean> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--allow-natives-syntax',
    '--input-type=module',
    '-e',
    wasmScript(keep),
  ]);
  return stdout.trim() === 'true';
}

/**
 * As a run with a journal: the CSV worker runs, a lock is taken (its renewer starts), and the CSV worker takes the
 * beats over at once, so the renewer may end before it was ever online to set the flags again. Then records are
 * allocated as before; prints the largest young generation seen.
 */
const handOverScript = (lockPath: string) => `
import { getHeapSpaceStatistics } from 'node:v8';
import { statSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
const { applyV8Flags } = await import(${JSON.stringify(V8_FLAGS)});
applyV8Flags(${2 ** 40});
const { renew, timingOf } = await import(${JSON.stringify(LEASE)});
${ALLOCATE}
while (young() < ${YOUNG_CAP_BYTES}) await allocate(1);
const csv = new Worker(new URL(${JSON.stringify(`file://${CSV_WORKER}`)}), { workerData: { file: 'm.csv', delimiter: ',' }, execArgv: [] });
await new Promise((resolve) => csv.once('online', resolve));
csv.unref();
const head = '{"beat":"';
writeFileSync(${JSON.stringify(lockPath)}, head + '0000000000"}');
const ino = statSync(${JSON.stringify(lockPath)}).ino;
renew({ id: 'l', path: ${JSON.stringify(lockPath)}, ino, offset: head.length }, timingOf(60000), () => {});
await new Promise((resolve) => setTimeout(resolve, 200));
largest = 0;
await allocate(300);
console.log(largest);
process.exit(0);
`;

describe('V8 flags across a worker start', () => {
  it('keep the young generation at its cap after the CSV worker takes the lock beats over', { retry: 2 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-v8-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [
        '--input-type=module',
        '-e',
        handOverScript(join(dir, 'journal.lock')),
      ]);
      expect(Number(stdout.trim())).toBeLessThanOrEqual(YOUNG_CAP_BYTES);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keep WebAssembly (undici's HTTP parser) on its baseline compiler", async () => {
    expect(await wasmOptimized(true)).toBe(false);
  });

  // V8's heap sizing under a loaded machine once let one scavenge through before the flag was set again (33,554,432
  // bytes, seen once in a full e2e round at load 20+); a broken keepV8FlagsAcross fails all three tries.
  it('keep the young generation at its cap after a worker thread starts', { retry: 2 }, async () => {
    expect(await largestYoung(true)).toBeLessThanOrEqual(YOUNG_CAP_BYTES);
  });

  it('keep it at 8 MB in a pod limited to 512 MiB or less', { retry: 2 }, async () => {
    const cap = youngCapFor(256 * 1024 * 1024);
    expect(cap).toBe(8 * 1024 * 1024);
    expect(await largestYoung(true, 256 * 1024 * 1024, cap)).toBeLessThanOrEqual(cap);
  });

  it('(the reason: without them set again, it grows past the cap)', { retry: 2 }, async () => {
    expect(await largestYoung(false)).toBeGreaterThan(YOUNG_CAP_BYTES);
  });
});
