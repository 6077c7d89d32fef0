/**
 * The CSV worker alone over a whole file: dist/io/csv-worker.js with the import's row encoder, every chunk
 * encoded, 4 chunks of 64 KiB in flight (as the import's client, src/io/csv-worker-client.ts), the worker's young
 * generation 4 MB (as there). Prints the replies and the encoded rows' fields. What the worker's isolate costs,
 * without the main thread's work: `/usr/bin/time -f "%e %U %S %M" node bench/csv-worker-alone.mjs FILE.csv`
 * (docs/performance.md, the pod section). Run `npm run build` first.
 */
import { Worker } from 'node:worker_threads';
import { openSync, readSync } from 'node:fs';
const file = process.argv[2];
const workerUrl = new URL('../dist/io/csv-worker.js', import.meta.url).href;
const encoderUrl = new URL('../dist/core/import/row-encoder.js', import.meta.url).href;
const worker = new Worker(new URL(workerUrl), {
  workerData: { file, delimiter: ',', padShortRows: false },
  resourceLimits: { maxYoungGenerationSizeMb: 4 },
});
const fd = openSync(file, 'r');
let inFlight = 0,
  ended = false,
  sentEncode = false,
  encoded = 0,
  replies = 0;
function pump() {
  while (inFlight < 4 && !ended) {
    const buf = Buffer.allocUnsafe(65536);
    const n = readSync(fd, buf, 0, 65536, null);
    inFlight++;
    if (n === 0) {
      ended = true;
      worker.postMessage({ type: 'end' });
      break;
    }
    worker.postMessage({ type: 'chunk', bytes: buf.subarray(0, n) }, [buf.buffer]);
    if (!sentEncode) {
      sentEncode = true;
      worker.postMessage({
        type: 'encode',
        encoder: { module: encoderUrl, options: { file, hashes: true }, everyChunk: true },
      });
    }
  }
}
worker.on('message', (reply) => {
  if (reply.type !== 'parsed') throw new Error(JSON.stringify(reply).slice(0, 300));
  inFlight--;
  replies++;
  if (reply.packed.encoded) encoded += reply.packed.encoded.rows.length;
  if (ended && inFlight === 0) {
    console.log(replies, encoded);
    void worker.terminate();
    return;
  }
  pump();
});
pump();
