/** The import use case: `runPipeline` and its contracts (see pipeline.ts for how the pieces fit). */
export { runPipeline, IMPORT_DEFAULTS } from './pipeline.js';
export { importCategory } from './category.js';
export {
  importFile,
  type ImportRequest,
  type ImportPorts,
  type ImportTarget,
  type ImportReport,
  type ImportStateReport,
  type ImportFileEvent,
  type ImportConnection,
  type ConnectOptions,
} from './import-file.js';
export { fanOut, type ImportEvent, type ImportEventListener, type Progress } from './events.js';
export type * from './types.js';
