/** The messages between the main thread and the CSV parsing worker (csv-worker.ts, csv-worker-client.ts). */
import type { PackedRecords } from './csv-packing.js';

export type ToWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'end' };

export type FromWorker =
  /**
   * One per message received, in order: the records that chunk completed; the header's cells once, as read (the
   * main thread checks them), with the reply that has them.
   */
  | { type: 'parsed'; headers?: string[]; headerLines: { start: number; end: number }; packed: PackedRecords; ended: boolean }
  /** The input is broken (a header that is not UTF-8, a quote never closed): thrown again as this InputError. */
  | { type: 'input-error'; message: string; code: string; file?: string; line?: number; hint?: string }
  /** A bug in the worker. */
  | { type: 'failed'; message: string };
