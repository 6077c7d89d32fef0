/** The import's defaults, apart from the pipeline: `import --help` names them without loading what runs an import. */
import { ADAPTIVE_DEFAULTS } from './concurrency-limit.js';

export const IMPORT_DEFAULTS = {
  batchSize: 500,
  maxBatchBytes: 1024 * 1024,
  maxConcurrency: ADAPTIVE_DEFAULTS.max,
  maxHeldRows: 10_000,
  /**
   * The bytes the import's window may hold before the reader pauses (flow-gate.ts): closed batches not sent yet,
   * and the batches of requests whose response is not handled yet (a request out holds its body and its records'
   * packed JSON, so about twice its batch's bytes in memory). Without it, at 100 ms of latency the adaptive limit
   * reached 32 requests with as many closed batches ready behind them: ~64 batches of ~140 KB (docs/performance.md,
   * issue 28).
   *
   * 12 MiB, from measurement (docs/performance.md, "Peak memory in a small pod"): the budget caps the rate against
   * a server at budget / round trip, and a row in the window weighs its JSON body and its packed cells (~500 bytes),
   * not its ~280 bytes of CSV. 3 MiB held the 100 ms case to 0.77 of the 0 ms rate on a quiet machine (64,828 against
   * 84,407 rows/s) for ~5 MB of peak RSS; 12 MiB gave 0.85 and no budget 0.87 (within noise). What it bounds is fat
   * records: ~32 requests of 500 rows of 100 KB each would otherwise be held at once. Not scaled with the container's
   * memory limit: what the window must hold follows the server's round trip and the rate, not the pod.
   */
  windowBytes: 12 * 1024 * 1024,
  graceMs: 10_000,
} as const;
