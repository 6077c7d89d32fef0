/**
 * The V8 settings every memberctl process runs with, set at run time (the heap-size flags can only be given on
 * node's command line, which `node bin/memberctl.js` and an npm shim do not carry):
 *
 * - `--heap-growing-percent=100`: V8 lets the old generation grow to ~4× its live size before a full GC; records in
 *   flight at each young-generation GC are promoted and pile up as garbage. Growing by 100% between full GCs keeps
 *   import near its live size; 50% ran 4× the full GCs and cost import ~20% of its CPU (docs/performance.md).
 * - The young generation stops growing at YOUNG_CAP_BYTES: V8 doubles it (up to 32 MB on the main thread, 16 MB
 *   in a worker) once as many bytes have survived scavenges as it holds, which a pipeline of records in flight
 *   always reaches; its 32 MB were a quarter of import's peak RSS. The growth factor is read at every growth, so
 *   setting it to 1 once the cap is reached holds the size there. In a cgroup limited to 512 MiB or less (a small
 *   pod) the cap is 8 MB: less memory for more CPU.
 * - WebAssembly stays on its baseline compiler (Liftoff): undici parses HTTP responses with llhttp compiled to
 *   WebAssembly, and V8's tier-up of its parse function to TurboFan (V8's optimizing compiler, on a background
 *   thread) took ~30 MB of compiler memory for ~0.5 s: the peak RSS of a run. A tiering budget cannot prevent it: the
 *   largest V8 takes (~2·10⁹ bytes executed) lasted ~1,000 responses of the parse function's big loop (~200k rows).
 *   Dynamic tiering off (read when a module is compiled) with tier-up off compiles each function once, with Liftoff;
 *   TurboFan still compiles what Liftoff cannot (unlike `--liftoff-only`). Liftoff code parses a few hundred bytes
 *   per request, a batch of 500 rows: nothing to optimize.
 *
 * Starting a worker thread sets the growth factor back to V8's default (measured on Node 20: a new isolate's heap
 * is configured with it): whoever starts one passes it to `keepV8FlagsAcross`, which sets every flag again.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * Both semi-spaces of the main thread's young generation together. 1M-row import at 0 ms: peak RSS 208 MB → 158 MB
 * with this and the CSV worker's young generation at 4 MB, CPU unchanged.
 */
export const YOUNG_CAP_BYTES = 16 * 1024 * 1024;
/**
 * The cap in a small pod (a cgroup memory limit of SMALL_POD_BYTES or less): 8 MB took 8 MB off a 1M-row import's
 * peak RSS (171 → 163 MB) for ~10% more CPU (more records promoted), a trade for a pod, not for every run.
 */
export const SMALL_POD_YOUNG_CAP_BYTES = 8 * 1024 * 1024;
export const SMALL_POD_BYTES = 512 * 1024 * 1024;

/**
 * The memory limit of this process's cgroup in bytes, or undefined (none, or unknown). libuv reads it (cgroup v2
 * `memory.max` or v1 `memory.limit_in_bytes`, at the process's own cgroup path): 0 when it knows none, and v1's
 * "unlimited" (2^63 rounded down to a page) comes through as a number past 2^53.
 */
export function cgroupMemoryLimit(constrained: number | undefined = process.constrainedMemory()): number | undefined {
  return constrained !== undefined && Number.isSafeInteger(constrained) && constrained > 0 ? constrained : undefined;
}

/** The main thread's young-generation cap for a memory limit (undefined: none). */
export function youngCapFor(limitBytes: number | undefined): number {
  return limitBytes !== undefined && limitBytes <= SMALL_POD_BYTES ? SMALL_POD_YOUNG_CAP_BYTES : YOUNG_CAP_BYTES;
}

let youngCap = YOUNG_CAP_BYTES;
let limitRead = false;
let capped = false;
let watch: PerformanceObserver | undefined;

function youngBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

function capWhenReached(): boolean {
  if (youngBytes() < youngCap) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  capped = true;
  return true;
}

/** Sets the flags; the young-generation cap from `memoryLimit` (bytes), else from the cgroup's limit, read once. */
export function applyV8Flags(memoryLimit?: number): void {
  if (!limitRead) {
    youngCap = youngCapFor(memoryLimit ?? cgroupMemoryLimit());
    limitRead = true;
  }
  setFlagsFromString('--heap-growing-percent=100');
  // tier-up off first: dynamic tiering off with tier-up on would compile every function with TurboFan at once
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
  if (capped) {
    setFlagsFromString('--semi-space-growth-factor=1');
    return;
  }
  if (watch || capWhenReached()) return;
  // checked after young-generation GCs (the only time it grows) until the cap is reached, then never again
  watch = new PerformanceObserver(() => {
    if (!capWhenReached()) return;
    watch?.disconnect();
    watch = undefined;
  });
  watch.observe({ entryTypes: ['gc'] });
}

/** Sets the flags again once `worker` runs: its start reset the growth factor. */
export function keepV8FlagsAcross(worker: Worker): void {
  worker.once('online', () => applyV8Flags());
}
