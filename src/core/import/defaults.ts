/** The import's defaults, apart from the pipeline: `import --help` names them without loading what runs an import. */
import { ADAPTIVE_DEFAULTS } from './concurrency-limit.js';

export const IMPORT_DEFAULTS = {
  batchSize: 500,
  maxBatchBytes: 1024 * 1024,
  maxConcurrency: ADAPTIVE_DEFAULTS.max,
  maxHeldRows: 10_000,
  graceMs: 10_000,
} as const;
