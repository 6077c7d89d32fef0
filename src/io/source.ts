/**
 * The contract every input reader fulfils: an async iterable of records, streamed, each with its number
 * and the physical line where it starts, so every message can point at it.
 */
import type { TextEncoding } from './input-encoding.js';
import type { InvalidUtf8Summary } from './utf8-check.js';

export type InputFormat = 'csv' | 'json' | 'ndjson' | 'xlsx';

export interface SourceRecord {
  /** 1-based position among the records of the input (CSV header not counted). */
  record: number;
  /** Physical line where the record starts (a CSV header is line 1, so the first CSV record is usually line 2). */
  line: number;
  /**
   * CSV: the row's cells as strings, aligned with `RecordSource.headers`: exactly as many cells as headers
   * (empty surplus cells are dropped; with --pad-short-rows missing trailing cells are '', and `padded` is set); a
   * row that is short, or whose surplus cells hold data, keeps its cells as read and has `error`.
   * JSON / NDJSON: the parsed value (normally an object).
   * When `error` is set on a JSON / NDJSON record: the raw text that could not be parsed (for rejects files).
   */
  raw: unknown;
  /**
   * Set when this record could not be read (not valid JSON, invalid UTF-8, surplus CSV cells, over 16 MB);
   * it then counts as invalid, and the reader goes on. The message does not repeat the file or record line.
   */
  error?: { message: string; hint?: string; cause?: 'invalid-utf8' };
  /**
   * JSON / NDJSON with `error`: the record's top-level memberId when it parsed and was refused for something else
   * (a key given twice, a number a double cannot hold), so reports name the member. Never set when the memberId
   * itself is what was wrong.
   */
  memberId?: string;
  /**
   * CSV: set on the input's last record when no line break follows it. An export cut short (a full disk, a
   * transfer that stopped) ends this way, mid-record, and its last cell may be cut ("Gold" read as "Go").
   */
  unterminated?: true;
  /** CSV with --pad-short-rows: the row had fewer cells than the header; its missing trailing cells were added as ''. */
  padded?: true;
  /**
   * CSV with a --null-token: the indices of the cells that equal the token (trimmed) but were quoted. A quoted cell
   * is text as written, never null (PostgreSQL's COPY rule): `"NULL"` is a surname.
   */
  quotedNullTokens?: number[];
}

/**
 * A CSV row the parsing worker has already mapped, checked and serialised with the encoder the caller handed it
 * (RowEncoderSpec): its item's JSON as UTF-8 bytes (`bytes` of `slab` from `at`; a chunk's rows share one slab),
 * its memberId and the duplicate check's hashes, instead of its cells (`raw` is undefined). In the slab each item is
 * followed by a comma (not counted in `bytes`), as in the import's own slabs. Only a row the encoder
 * found plainly valid comes this way; every other row comes as its cells.
 */
export interface EncodedRecord extends SourceRecord {
  encoded: true;
  raw: undefined;
  memberId: string;
  slab: Buffer;
  at: number;
  bytes: number;
  /** The duplicate check's hashes of the memberId (low, high words) and of the row's cells, when `hashed`. */
  hashed: boolean;
  idLow: number;
  idHigh: number;
  content: number;
}

/** Whether a record came from the worker's encoder (EncodedRecord) rather than as its cells. */
export function isEncoded(record: SourceRecord): record is EncodedRecord {
  return (record as Partial<EncodedRecord>).encoded === true;
}

/** What an encoder fills in for one row it takes (one object, reused row after row). */
export interface EncodedRow {
  json: string;
  memberId: string;
  hashed: boolean;
  idLow: number;
  idHigh: number;
  content: number;
}

/**
 * Turns a row into an EncodedRow, or answers false for a row that must go to the caller as its cells. The module
 * named by RowEncoderSpec exports `createRowEncoder(headers, options): RowEncoder | Promise<RowEncoder>`; the worker
 * loads it by name, so this layer imports none of the caller's code.
 */
export type RowEncoder = (record: SourceRecord, into: EncodedRow) => boolean;

export interface RowEncoderSpec {
  /** A file: URL of an ES module exporting createRowEncoder. */
  module: string;
  /** Its options, as structured clone carries them. */
  options: unknown;
  /**
   * Encode every chunk's rows, not only while the worker has time to spare (csv-worker.ts `spare`): for tests,
   * which must know which path a row takes, and for measuring.
   */
  everyChunk?: boolean;
}

export type CsvWorkerChoice = 'auto' | 'always' | 'never';

export interface SourceOptions {
  /** A path, or '-' for standard input. */
  path: string;
  /**
   * Overrides the name. Otherwise taken from the extension (.csv .tsv .json .ndjson .jsonl, each optionally .gz),
   * and for '-' or an unknown extension sniffed from the first non-blank byte: [ json, { ndjson, else csv.
   */
  format?: InputFormat;
  /** CSV delimiter override (one character, or "tab"); otherwise the most frequent of , ; tab | in the header line. */
  delimiter?: string;
  /** --sheet: the workbook sheet to read (.xlsx); the first one otherwise. */
  sheet?: string;
  /** --encoding: the text's encoding (iconv-lite names); otherwise UTF-8, or UTF-16 when the file starts with its BOM. */
  encoding?: string;
  /** --pad-short-rows (CSV): a row with fewer cells than the header gets its missing trailing cells as '' (else refused). */
  padShortRows?: boolean;
  /**
   * --null-token (CSV): the reader marks the quoted cells that equal it (`quotedNullTokens`), which the mapping
   * keeps as text; '' marks nothing. Unquoted cells equal to it are JSON null (the mapping's rule).
   */
  nullToken?: string;
  /**
   * A large CSV file is parsed in a worker, ahead of the caller, on a machine with cores to spare
   * (csv-worker-client.ts): for a caller whose own work per record is larger than the parse (import).
   */
  parseAhead?: boolean;
  /**
   * Where a CSV is parsed: 'auto' (the default) as `parseAhead` and the file's size decide, 'always' in a worker
   * whatever its size, 'never' on this thread. The command line takes it from MEMBERCTL_CSV_WORKER (tests, and a
   * way out should a worker misbehave); nothing below it reads the environment.
   */
  csvWorker?: CsvWorkerChoice;
  /**
   * The parsing worker's heap cap in MB (its old generation; unset: Node's own limit), from
   * MEMBERCTL_CSV_WORKER_HEAP_MB: for tests, which make a worker run out of memory for real, and for a container
   * that must keep the worker's share small.
   */
  csvWorkerHeapMb?: number;
  /** Stream to read when path is '-' (defaults to process.stdin; tests pass their own). */
  stdin?: NodeJS.ReadableStream;
}

export interface RecordSource extends AsyncIterable<SourceRecord> {
  /** Display name for messages: the path as given, or "stdin". */
  readonly file: string;
  readonly format: InputFormat;
  /** CSV and workbooks: the header cells as written (BOM and surrounding whitespace removed). Known when openRecordSource resolves. */
  readonly headers?: string[];
  /** CSV and workbooks: the line (a workbook's row) of the header, after any blank ones; messages about it name it. */
  readonly headerLine?: number;
  /** CSV only: the detected or given delimiter. */
  readonly delimiter?: string;
  /** The text's encoding and whether it started with a BOM (the rejects CSV is written the same way). */
  readonly encoding?: TextEncoding;
  /** What of the bytes read so far was not UTF-8: the first bad byte (undefined when none was, or for --encoding). */
  invalidUtf8(): InvalidUtf8Summary | undefined;
  /** Bytes of the file read so far (compressed bytes for .gz), for progress and ETA. */
  bytesRead(): number;
  /** Size of the file in bytes, when known (not for stdin). */
  readonly totalBytes?: number;
  /**
   * The same records, in the same order, as arrays of those read from one chunk of the input (never empty):
   * one promise per chunk rather than per record, for loops that handle each record synchronously. Iterate
   * either this or the source itself, not both.
   */
  batches(): AsyncIterable<SourceRecord[]>;
  /**
   * CSV parsed in a worker: from the next chunk the worker parses on, it hands each row the encoder takes as an
   * EncodedRecord (the rows already parsed come as cells). False when this source has no worker.
   */
  encodeRows?(encoder: RowEncoderSpec): boolean;
  /**
   * Stop reading early and release the file (e.g. --limit, Ctrl-C). Safe to call twice. Breaking out of a
   * for-await loop over the source releases the file too.
   */
  close(): Promise<void>;
}
