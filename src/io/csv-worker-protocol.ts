/** The messages between the main thread and the CSV parsing worker (csv-worker.ts, csv-worker-client.ts). */
import type { PackedRecords } from './csv-packing.js';

export type ToWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'end' };

export type FromWorker =
  /**
   * One per message received, in order: the records that chunk completed; the header's cells once, as read (the
   * main thread checks them), with the reply that has them.
   */
  | {
      type: 'parsed';
      headers?: string[];
      headerLines: { start: number; end: number };
      packed: PackedRecords;
      ended: boolean;
    }
  /**
   * The input is broken (a quote never closed, a record too large): thrown again as this InputError, after checking
   * the header's cells when the same message completed them (the main thread checks a header as soon as it is read).
   * `lastLine`: where the records that message parsed before the error end (dropped, as on the main thread, whose
   * UTF-8 checker they still claimed).
   */
  | {
      type: 'input-error';
      message: string;
      code: string;
      file?: string;
      line?: number;
      hint?: string;
      headers?: string[];
      headerLines: { start: number; end: number };
      lastLine?: number;
    }
  /** A bug in the worker. */
  | { type: 'failed'; message: string };
