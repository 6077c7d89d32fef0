/**
 * The CSV parsing worker's entry point: bytes in (one message per chunk, then "end"), records out (one packed
 * reply per message, in order). Runs CsvRecordCore, the same code the main thread runs for small files, without a
 * UTF-8 checker: the main thread checks the bytes as it reads them and claims bad lines by each record's last line.
 * An input error travels back as data and is thrown again on the main thread as the same InputError.
 *
 * An "encode" message names a module (the caller's row encoder: RowEncoderSpec); from the next chunk on, the rows
 * it takes travel mapped, checked and serialised (csv-worker-messages.ts), in each chunk the worker has time for
 * (`spare`). Loading it is the one asynchronous step: messages that come meanwhile wait their turn, so replies
 * keep the chunks' order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InputError } from '../errors.js';
import { beatLocks, type LockBeatsOffer } from '../state/lock-beats.js';
import { CsvRecordCore } from './csv-record-core.js';
import { type FromWorker, packRecords, type ToWorker, transferables } from './csv-worker-messages.js';
import type { RowEncoder, RowEncoderSpec } from './source.js';

const { file, delimiter, padShortRows, nullToken } = workerData as {
  file: string;
  delimiter: string;
  padShortRows: boolean;
  nullToken?: string;
};
const core = new CsvRecordCore(file, delimiter, undefined, true, padShortRows, nullToken);
const port = parentPort!;
let headersSent = false;
let encoder: RowEncoder | undefined;
let everyChunk = false;
/** Messages that came while the encoder loads, handled in order once it has. */
let waiting: ToWorker[] | undefined;

/** The header's cells, with the first reply that has them (after an error too: the main thread checks them first). */
function headersOnce(): string[] | undefined {
  const headers = !headersSent && core.headers ? core.headers : undefined;
  headersSent ||= headers !== undefined;
  return headers;
}

port.on('message', (message: ToWorker | LockBeatsOffer) => {
  // the run's lock beats, while this worker runs: one isolate less than a renewer thread of their own (lease.ts);
  // never queued behind an encoder's loading
  if (message.type === 'lock-beats') beatLocks(message);
  else dispatch(message);
});

function dispatch(message: ToWorker): void {
  if (waiting) waiting.push(message);
  else if (message.type === 'encode') loadEncoder(message.encoder);
  else handle(message);
}

/**
 * Loads the encoder, then handles what came meanwhile. One that does not load (or whose header it does not take)
 * leaves the rows as cells: the main thread maps those as it always did, so nothing but speed is lost.
 */
function loadEncoder(spec: RowEncoderSpec): void {
  waiting = [];
  import(spec.module)
    .then(
      async (module: { createRowEncoder(headers: string[], options: unknown): RowEncoder | Promise<RowEncoder> }) => {
        encoder = core.headers ? await module.createRowEncoder(core.headers, spec.options) : undefined;
        everyChunk = spec.everyChunk === true;
      },
    )
    .catch(() => {
      encoder = undefined;
    })
    .finally(() => {
      const queued = waiting!;
      waiting = undefined;
      for (const message of queued) dispatch(message);
    });
}

/**
 * The worker's time waiting for a chunk and working on one (moving averages over ~20 chunks, ms): it encodes while
 * it waits more than SPARE of the time it works, i.e. while the main thread is the slower of the two, and hands
 * over cells while chunks queue here. Encoding every chunk can move the bottleneck to this thread (before the CSV
 * scanner: 200k rows took the main thread 1.9 → 1.15 s of CPU, the worker 1.15 → 1.9 s); with it, the worker has
 * time for nearly every chunk of the bench's file, but a costlier mapping may not leave it that. Averaged, not
 * chunk by chunk: the main thread hands over chunks in bursts (after waiting for the server, say), and a chunk
 * that queued behind others in such a burst says nothing about which thread is the slower. It starts encoding.
 */
let waited = 1;
let working = 0;
let finishedAt = performance.now();
const SPARE = 0.05;
const WEIGHT = 0.05;

function spare(startedAt: number): boolean {
  waited += (startedAt - finishedAt - waited) * WEIGHT;
  return waited > working * SPARE;
}

function worked(startedAt: number): void {
  finishedAt = performance.now();
  working += (finishedAt - startedAt - working) * WEIGHT;
}

function handle(message: Exclude<ToWorker, { type: 'encode' }>): void {
  const startedAt = performance.now();
  let reply: FromWorker;
  try {
    if (message.type === 'chunk')
      core.parse(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
    else core.end();
    const { records, ends } = core.take();
    const packed = packRecords(records, ends, spare(startedAt) || everyChunk ? encoder : undefined);
    reply = { type: 'parsed', headers: headersOnce(), headerLines: core.headerLines, packed, ended: core.ended };
    port.postMessage(reply, transferables(packed));
  } catch (error) {
    reply =
      error instanceof InputError
        ? {
            type: 'input-error',
            message: error.message,
            code: error.code,
            file: error.file,
            line: error.line,
            hint: error.hint,
            headers: headersOnce(),
            headerLines: core.headerLines,
            lastLine: core.take().ends.at(-1),
          }
        : { type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    port.postMessage(reply);
  }
  worked(startedAt);
}
