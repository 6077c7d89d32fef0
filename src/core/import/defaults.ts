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
   * 3 MiB, from measurement (1M rows at 100 ms, 3 runs each beside the build without it): 2 and 3 MiB took the
   * peak RSS's median ~5 MB down, 4 MiB nothing (the ~32 batches in flight alone are ~4.5 MB). The budget caps the
   * rate against a server at budget / round trip: 3 MiB at 100 ms is ~30 MB/s, 1.5× a quiet machine's 0 ms rate
   * (70,000 rows/s of ~280 bytes); 2 MiB would sit at about that rate. Not scaled down with the container's memory
   * limit: what the window must hold follows the server's round trip and the rate, not the pod.
   */
  windowBytes: 3 * 1024 * 1024,
  graceMs: 10_000,
} as const;
