/**
 * CSV records as cell arrays, streamed chunk by chunk (csv-record-core.ts), on this thread or, for a large file on a
 * machine with cores to spare, in a worker (csv-worker-client.ts). The header is read before `openCsv` resolves.
 */
import { InputError, UsageError } from '../errors.js';
import { CsvRecordCore } from './csv-record-core.js';
import { WorkerCsvParser } from './csv-worker-client.js';
import type { InputBytes } from './input-bytes.js';
import type { RowEncoderSpec, SourceRecord } from './source.js';
import type { Utf8LineChecker } from './utf8-check.js';

export interface CsvRecords {
  headers: string[];
  /** The physical line the header starts on (blank lines before it are skipped). */
  headerLine: number;
  delimiter: string;
  /** The records of each chunk read, as one array (never empty). */
  records: AsyncIterable<SourceRecord[]>;
  /** Parsed in a worker: hands it the row encoder (WorkerCsvParser.encodeRows). */
  encodeRows?(encoder: RowEncoderSpec): boolean;
}

/** Bytes gathered before choosing the delimiter: the header line must be in them. */
const HEAD_BYTES = 64 * 1024;

export interface OpenCsvOptions {
  delimiter?: string;
  /** The checker that saw the (UTF-8) bytes, whose bad lines each record claims; none for decoded text. */
  utf8?: Utf8LineChecker;
  /** The parsing worker's entry point (csvWorkerEntry), or undefined to parse on this thread. */
  worker?: URL;
  /** --pad-short-rows (checkRowLength in csv-record-core.ts). */
  padShortRows?: boolean;
  /** --null-token: records mark their quoted cells equal to it (SourceRecord.quotedNullTokens). */
  nullToken?: string;
  /** The worker's heap cap in MB (SourceOptions.csvWorkerHeapMb). */
  workerHeapMb?: number;
}

export async function openCsv(bytes: InputBytes, file: string, options: OpenCsvOptions = {}): Promise<CsvRecords> {
  const head = await readHead(bytes, file);
  refuseExcelSeparatorLine(head, file);
  const delimiter =
    options.delimiter !== undefined
      ? normalizeDelimiter(options.delimiter)
      : detectDelimiter(head.toString('utf8', 0, HEAD_BYTES));
  bytes.unshift(head);
  const { utf8, padShortRows, nullToken } = options;
  const parser = options.worker
    ? new WorkerCsvParser(
        bytes,
        { file, delimiter, utf8, padShortRows, nullToken, heapMb: options.workerHeapMb },
        options.worker,
      )
    : new InThreadCsvParser(bytes, new CsvRecordCore(file, delimiter, utf8, false, padShortRows, nullToken));
  let headers: string[] | undefined;
  try {
    headers = await parser.readHeader();
  } catch (error) {
    await parser.close();
    throw error;
  }
  if (headers === undefined) {
    await parser.close();
    throw emptyFile(file);
  }
  const csv: CsvRecords = { headers, headerLine: parser.headerLine, delimiter, records: parser.records() };
  if (parser instanceof WorkerCsvParser) csv.encodeRows = (encoder) => parser.encodeRows(encoder);
  return csv;
}

/** CSV parsed on this thread (small files, stdin, one core): CsvRecordCore fed chunk by chunk. */
class InThreadCsvParser {
  readonly #core: CsvRecordCore;

  constructor(
    private readonly bytes: InputBytes,
    core: CsvRecordCore,
  ) {
    this.#core = core;
  }

  async readHeader(): Promise<string[] | undefined> {
    while (this.#core.headers === undefined && (await this.#feed()));
    return this.#core.headers;
  }

  get headerLine(): number {
    return this.#core.headerLines.start;
  }

  async *records(): AsyncGenerator<SourceRecord[]> {
    try {
      for (;;) {
        const ready = this.#core.take().records;
        if (ready.length > 0) yield ready;
        if (!(await this.#feed())) {
          const last = this.#core.take().records;
          if (last.length > 0) yield last;
          return;
        }
      }
    } finally {
      await this.close();
    }
  }

  close(): Promise<void> {
    return this.bytes.close();
  }

  /** Feeds the next chunk; false at the end of the input. */
  async #feed(): Promise<boolean> {
    if (this.#core.ended) return false;
    const chunk = await this.bytes.next();
    if (chunk === undefined) {
      this.#core.end();
      return false;
    }
    this.#core.parse(chunk);
    return true;
  }
}

/** The delimiters detected when --delimiter is not given: the most frequent in the header line wins. */
const CANDIDATES = [',', ';', '\t', '|'] as const;

/** Accepts a single character, or "tab" / "\t" spelled out (hard to type on a command line). */
function normalizeDelimiter(given: string): string {
  const value = given === 'tab' || given === '\\t' ? '\t' : given;
  if (value.length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw new UsageError(`--delimiter ${JSON.stringify(given)}: expected one character such as , ; | or "tab"`, {
      code: 'delimiter',
      hint: 'Leave --delimiter out to detect it from the header line.',
    });
  }
  return value;
}

/** Counts the candidates outside quotes in the first non-blank line; a tie goes to the earlier candidate, none to ','. */
function detectDelimiter(head: string): string {
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  let seenContent = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      if (seenContent) break;
      continue;
    } else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
    if (c !== ' ' && c !== '\ufeff') seenContent = true;
  }
  let best: string = ',';
  let bestCount = 0;
  for (const c of CANDIDATES) {
    if (counts.get(c)! > bestCount) {
      best = c;
      bestCount = counts.get(c)!;
    }
  }
  return best;
}

/** The first bytes, up to the end of the first non-blank line (or HEAD_BYTES); an empty input is an InputError. */
async function readHead(bytes: InputBytes, file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = await bytes.next();
    if (chunk === undefined) break;
    parts.push(chunk);
    size += chunk.length;
    if (size >= HEAD_BYTES || /\S[^\n]*\n/.test(chunk.toString('latin1'))) break;
  }
  const head = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  if (!/[^\s\ufeff]/.test(head.toString('utf8', 0, HEAD_BYTES))) throw emptyFile(file);
  return head;
}

/**
 * Excel writes (and reads) a first line `sep=;` naming the delimiter. Read as a header it gave "unknown columns
 * 'sep=', ''"; skipped, it would renumber every line that messages and the rejects file name. Refused, saying what
 * it is and how to read the rest.
 */
function refuseExcelSeparatorLine(head: Buffer, file: string): void {
  const line = /^\ufeff?sep=(.)\r?\n/i.exec(head.toString('utf8', 0, 16));
  if (!line) return;
  const delimiter = line[1]!;
  const flag = delimiter === '\t' ? 'tab' : `'${delimiter}'`;
  throw new InputError(
    `${file} line 1: ${JSON.stringify(`sep=${delimiter}`)} is the line Excel writes to name the delimiter, not a header`,
    {
      code: 'input-csv-separator-line',
      file,
      line: 1,
      hint:
        file === 'stdin' // open-source.ts's name for '-'
          ? `Remove that line before memberctl reads it (… | tail -n +2 | memberctl …), and pass --delimiter ${flag}`
          : `Remove that line, then read the file with its delimiter: tail -n +2 ${file} > without-sep.csv, and --delimiter ${flag}`,
    },
  );
}

function emptyFile(file: string): InputError {
  return new InputError(`${file} is empty: no header line`, {
    code: 'input-empty',
    file,
    line: 1,
    hint: 'A CSV file starts with a header line naming its columns (memberId,isActive,createdAt,...); `memberctl template` writes one.',
  });
}
