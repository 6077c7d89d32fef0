/**
 * CSV parsed in a worker thread, on a machine with cores to spare (WORKER_MIN_CORES): the main thread reads the bytes
 * (and decodes them, for another encoding) and hands them to a worker running CsvRecordCore; records come back
 * packed (csv-worker-messages.ts), or mapped and serialised by the caller's row encoder, and are unpacked here, so
 * the sending side runs while the next rows are parsed. The worker keeps at most AHEAD chunks in hand, so memory
 * stays flat.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InputError, ReaderFailure } from '../errors.js';
import { keepV8FlagsAcross } from '../v8-flags.js';
import { usableCores } from './cpu-quota.js';
import type { InputBytes } from './input-bytes.js';
import { type FromWorker, type ToWorker, unpackRecords } from './csv-worker-messages.js';
import { checkHeaderLine } from './csv-record-core.js';
import { invalidUtf8Error } from './record-limits.js';
import type { Utf8LineChecker } from './utf8-check.js';
import { type CsvWorkerChoice, isEncoded, type RowEncoderSpec, type SourceRecord } from './source.js';

/** Chunks handed to the worker and not yet answered: enough to keep it busy while the main thread sends. */
const AHEAD = 4;
/** The worker's young generation: its records live for one chunk (~64 KB of input). */
const WORKER_YOUNG_MB = 4;

export class WorkerCsvParser {
  readonly #worker: Worker;
  readonly #replies: FromWorker[] = [];
  #wake: (() => void) | undefined;
  #failure: Error | undefined;
  /** Why reading the input failed, thrown once the replies to the chunks read before it have been handed out. */
  #readFailure: { error: unknown } | undefined;
  #unanswered = 0;
  /** Wakes the reading loop when a reply frees a place among the AHEAD. */
  #slotFreed: (() => void) | undefined;
  /** The worker's last reply has come: nothing more to read. */
  #parsed = false;
  #closed = false;
  /** Records that came with the header's reply, handed out first. */
  #early: SourceRecord[][] = [];

  readonly #file: string;
  #headerLine = 1;
  /** The checker that saw the (UTF-8) bytes on this thread: records claim their bad lines here, in order. */
  readonly #utf8: Utf8LineChecker | undefined;

  constructor(
    private readonly bytes: InputBytes,
    input: {
      file: string;
      delimiter: string;
      utf8?: Utf8LineChecker;
      padShortRows?: boolean;
      nullToken?: string;
      heapMb?: number;
    },
    entry: URL,
  ) {
    this.#file = input.file;
    this.#utf8 = input.utf8;
    const { file, delimiter } = input;
    this.#worker = new Worker(entry, {
      workerData: { file, delimiter, padShortRows: input.padShortRows === true, nullToken: input.nullToken },
      resourceLimits: workerLimits(input.heapMb),
    });
    keepV8FlagsAcross(this.#worker);
    // only a pending reply keeps the process alive: an abandoned parser never holds it
    this.#worker.unref();
    this.#worker.on('message', (reply: FromWorker) => this.#arrived(reply));
    // a worker that dies (out of memory on a hostile file, killed) stops the run: what was read is accounted
    this.#worker.on('error', (error) => this.#fail(workerDied(error)));
    this.#worker.on('exit', (code) =>
      this.#fail(
        new ReaderFailure(`the CSV parsing worker exited (code ${code}) while reading`, 'exited', { hint: WAY_OUT }),
      ),
    );
    void this.#handOver();
  }

  /** The header's cells; undefined when the input ended before a header line. */
  async readHeader(): Promise<string[] | undefined> {
    for (;;) {
      const reply = await this.#next();
      if (reply === undefined) return undefined;
      if (reply.records.length > 0) this.#early.push(reply.records);
      if (reply.headers) return reply.headers;
    }
  }

  /** The physical line the header starts on, once readHeader has it. */
  get headerLine(): number {
    return this.#headerLine;
  }

  async *records(): AsyncGenerator<SourceRecord[]> {
    try {
      for (const early of this.#early.splice(0)) yield early;
      for (;;) {
        const reply = await this.#next();
        if (reply === undefined) return;
        if (reply.records.length > 0) yield reply.records;
      }
    } finally {
      await this.close();
    }
  }

  /** From the next chunk the worker parses on, rows the encoder takes come as EncodedRecords (csv-worker.ts). */
  encodeRows(encoder: RowEncoderSpec): boolean {
    if (this.#closed) return false;
    const message: ToWorker = { type: 'encode', encoder };
    this.#worker.postMessage(message);
    return true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker.removeAllListeners('exit');
    this.#wake?.();
    this.#slotFreed?.();
    await Promise.all([this.bytes.close(), this.#worker.terminate()]);
  }

  /** The next reply's records (the header checked first, when it has it); undefined once the input has ended. */
  async #next(): Promise<{ headers?: string[]; records: SourceRecord[] } | undefined> {
    if (this.#parsed || this.#closed) return undefined;
    const reply = await this.#reply();
    if (reply === undefined) return undefined; // closed while waiting
    this.#unanswered--;
    this.#slotFreed?.();
    if (reply.type === 'failed') {
      await this.close();
      throw new Error(reply.message);
    }
    let headers: string[] | undefined;
    try {
      if (reply.headers) {
        this.#headerLine = reply.headerLines.start;
        headers = checkHeaderLine(
          this.#file,
          reply.headers,
          reply.headerLines.start,
          this.#utf8?.claim(reply.headerLines.end),
        );
      }
      if (reply.type === 'input-error') {
        if (reply.lastLine !== undefined) this.#utf8?.claim(reply.lastLine);
        throw new InputError(reply.message, { code: reply.code, file: reply.file, line: reply.line, hint: reply.hint });
      }
    } catch (error) {
      await this.close();
      throw error;
    }
    const { records, ends } = unpackRecords(reply.packed);
    if (this.#utf8) {
      for (let i = 0; i < records.length; i++) {
        const bad = this.#utf8.claim(ends[i]!);
        if (!bad) continue;
        // the worker encodes no row holding a replacement character, which every byte that is not UTF-8 became
        if (isEncoded(records[i]!)) throw new Error(`record ${records[i]!.record} was encoded but is not UTF-8`);
        records[i]!.error = invalidUtf8Error(bad);
      }
    }
    if (reply.ended) this.#parsed = true;
    return { headers, records };
  }

  /**
   * Reads the input and hands it to the worker, up to AHEAD chunks unanswered, on its own: the replies to what was
   * read are handed out while the next read waits (a pipe whose writer pauses holds back none of the records).
   */
  async #handOver(): Promise<void> {
    try {
      for (;;) {
        while (this.#unanswered >= AHEAD && !this.#closed)
          await new Promise<void>((resolve) => (this.#slotFreed = resolve));
        if (this.#closed) return;
        const chunk = await this.bytes.next();
        if (this.#closed) return;
        this.#unanswered++;
        if (chunk === undefined) {
          const message: ToWorker = { type: 'end' };
          this.#worker.postMessage(message);
          return;
        }
        const bytes = new Uint8Array(chunk); // a copy of its own: a read chunk may share its memory with others
        const message: ToWorker = { type: 'chunk', bytes };
        this.#worker.postMessage(message, [bytes.buffer]);
      }
    } catch (error) {
      this.#readFailure = { error };
      this.#wake?.();
    }
  }

  async #reply(): Promise<FromWorker | undefined> {
    this.#worker.ref();
    try {
      while (this.#replies.length === 0) {
        if (this.#closed) return undefined;
        if (this.#failure) throw this.#failure;
        if (this.#readFailure && this.#unanswered === 0) {
          await this.close();
          throw this.#readFailure.error;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
      return this.#replies.shift()!;
    } finally {
      this.#worker.unref();
    }
  }

  #arrived(reply: FromWorker): void {
    this.#replies.push(reply);
    this.#wake?.();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#wake?.();
  }
}

/**
 * The worker's heap: its records live for one chunk, so a young generation of 4 MB (V8's is 16) costs no CPU
 * (docs/performance.md, issue 28). `heapMb` caps its old generation (SourceOptions.csvWorkerHeapMb).
 */
function workerLimits(heapMb: number | undefined): {
  maxYoungGenerationSizeMb: number;
  maxOldGenerationSizeMb?: number;
} {
  return heapMb !== undefined
    ? { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, maxOldGenerationSizeMb: heapMb }
    : { maxYoungGenerationSizeMb: WORKER_YOUNG_MB };
}

/** What to do when the worker dies, should it die before the run has a summary to print (while opening). */
const WAY_OUT =
  'The file itself may be fine: run again with MEMBERCTL_CSV_WORKER=never, and the CSV is parsed on the main thread.';

/** The worker's 'error': out of memory (ERR_WORKER_OUT_OF_MEMORY) or an error it did not catch. */
function workerDied(error: Error): ReaderFailure {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new ReaderFailure('the CSV parsing worker ran out of memory while reading', 'out-of-memory', {
      cause: error,
      hint: WAY_OUT,
    });
  const what = typeof code === 'string' ? code : error.message.split('\n')[0]!.slice(0, 200);
  return new ReaderFailure(`the CSV parsing worker failed while reading: ${what}`, 'error', {
    cause: error,
    hint: WAY_OUT,
  });
}

/** From this size on a file is parsed in a worker (starting one costs ~30 ms; parsing 2 MB on this thread ~80 ms). */
const WORKER_MIN_BYTES = 2 * 1024 * 1024;

/**
 * Usable cores (cpu-quota.ts) from which `auto` parses in a worker. With two, the worker gave no rate and cost CPU
 * and memory: since the CSV scanner, the main thread alone reads 200k rows in ~1.9 s, and with the worker its busiest
 * thread still took as long, the second core being busy with the kernel's socket work, libuv's pool and V8's GC
 * helpers (0 ms, 4 interleaved pairs: 1.76–1.96 s wall without against 2.04–2.50 s with, CPU 2.1–2.4 against
 * 2.9–3.6 s, peak RSS 8–13 MB lower; docs/performance.md "The CSV worker on two cores"). A third core is what the
 * worker's thread needs to run beside them; this machine has two, so that case is not measured here.
 */
export const WORKER_MIN_CORES = 3;

/**
 * Where the parsing worker's code is, when this input should be parsed in one: `wanted` (import, whose own work
 * per row outweighs the parse; validate's does not, and a worker would only add its cost), a file of
 * WORKER_MIN_BYTES or more (stdin, of unknown size and often a few rows piped by hand, is parsed here), and
 * WORKER_MIN_CORES usable cores: ones the process may run on and its cgroup's CPU quota gives time on
 * (cpu-quota.ts). `choice` 'always' or 'never' overrides that (SourceOptions.csvWorker: MEMBERCTL_CSV_WORKER, read
 * by the command line).
 */
export function csvWorkerEntry(
  totalBytes: number | undefined,
  wanted: boolean,
  choice: CsvWorkerChoice = 'auto',
  cores: number = usableCores(),
): URL | undefined {
  if (choice === 'never') return undefined;
  if (
    choice !== 'always' &&
    (!wanted || cores < WORKER_MIN_CORES || totalBytes === undefined || totalBytes < WORKER_MIN_BYTES)
  )
    return undefined;
  // run from the sources (the test runner), the worker is the compiled one: a worker thread cannot load TypeScript
  const here = import.meta.url;
  const entry = here.endsWith('.ts') ? new URL('../../dist/io/csv-worker.js', here) : new URL('./csv-worker.js', here);
  return existsSync(fileURLToPath(entry)) ? entry : undefined;
}
