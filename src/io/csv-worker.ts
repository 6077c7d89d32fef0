/**
 * The CSV parsing worker's entry point: bytes in (one message per chunk, then "end"), records out (one packed
 * reply per message, in order). Runs CsvRecordCore, the same code the main thread runs for small files, without a
 * UTF-8 checker: the main thread checks the bytes as it reads them and claims bad lines by each record's last line.
 * An input error travels back as data and is thrown again on the main thread as the same InputError.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InputError } from '../errors.js';
import { CsvRecordCore } from './csv-record-core.js';
import { type FromWorker, packRecords, type ToWorker, transferables } from './csv-worker-messages.js';

const { file, delimiter, padShortRows, nullToken } = workerData as {
  file: string;
  delimiter: string;
  padShortRows: boolean;
  nullToken?: string;
};
const core = new CsvRecordCore(file, delimiter, undefined, true, padShortRows, nullToken);
const port = parentPort!;
let headersSent = false;

/** The header's cells, with the first reply that has them (after an error too: the main thread checks them first). */
function headersOnce(): string[] | undefined {
  const headers = !headersSent && core.headers ? core.headers : undefined;
  headersSent ||= headers !== undefined;
  return headers;
}

port.on('message', (message: ToWorker) => {
  let reply: FromWorker;
  try {
    if (message.type === 'chunk')
      core.parse(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
    else core.end();
    const { records, ends } = core.take();
    const packed = packRecords(records, ends);
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
});
