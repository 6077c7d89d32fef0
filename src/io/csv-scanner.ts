/**
 * A CSV scanner that reads exactly as csv-parse 7 does with the reader's options (bom, relax_quotes,
 * relax_column_count, skip_empty_lines, record_delimiter \r\n / \n / \r mixed, max_record_size), at a fraction of
 * its cost (docs/decisions.md, "CSV parsing"; test/io/csv-scanner.test.ts holds it to csv-parse on random texts
 * in random chunks). What it reproduces, quirks included:
 * - a `"` opens a quoted cell only as the cell's first byte; inside, `""` is a quote; a `"` followed by the
 *   delimiter, a line break, a NUL byte or the end of the input closes it; followed by anything else the cell goes
 *   on unquoted and reads `"` + its text so far + `"` + the rest (`"ab"c` is the cell `"ab"c`, `"a""b"c` is `"a"b"c`);
 * - a line with no byte is skipped and counted in `empty_lines` (a line of spaces is a record of one cell);
 *   `lines` counts every \r and \n once, but an unquoted \r\n once: a quoted \r\n counts twice;
 * - max_record_size: the record's earlier cells (in UTF-16 units) and the current cell's bytes but one may not
 *   exceed it;
 * - each cell is decoded from its own bytes (invalid UTF-8 reads as U+FFFD, as Buffer.toString does);
 * - unlike csv-parse, a first line starting with FF FE is not read as UTF-16LE: the reader decodes UTF-16 files
 *   before they reach the parser (open-source.ts), so those bytes are UTF-8 data here.
 *
 * Its parts: this file takes the chunks (the bytes a chunk's end leaves that need what follows, the BOM);
 * csv-scan-states.ts is the state machine; csv-scan-cell.ts the cell being read and how its text is cut or gathered;
 * csv-scan-record.ts the record being read, csv-parse's counters and max_record_size.
 */
import { CsvError, type CsvErrorCode } from './csv-error.js';
import type { CsvPush } from './csv-scan-record.js';
import { CsvScanStates } from './csv-scan-states.js';

export { CsvError, type CsvErrorCode, type CsvPush };

const NO_BYTES = Buffer.alloc(0);

export interface CsvScannerOptions {
  /** One character (its UTF-8 bytes are matched). */
  delimiter: string;
  /** csv-parse's max_record_size; 0: no limit. */
  maxRecordSize: number;
  /** Report the quoted cells that equal it, trimmed. */
  nullToken?: string;
}

export class CsvScanner {
  /** csv-parse's counters as it emits each record (see the file's comment). */
  readonly info: { lines: number; empty_lines: number };
  readonly #states: CsvScanStates;
  readonly #delimiterBytes: number;
  /** Bytes not scanned yet: the last ones of a chunk, which need what follows to be read. */
  #tail: Buffer | undefined;
  #bomChecked = false;
  #lastByte = -1;
  #done = false;

  constructor(options: CsvScannerOptions) {
    const delimiter = Buffer.from(options.delimiter, 'utf8');
    if (options.delimiter.length !== 1) throw new Error('CsvScanner: the delimiter is one character');
    this.#delimiterBytes = delimiter.length;
    // an empty token finds nothing (as csv-parse was driven)
    this.#states = new CsvScanStates(delimiter, options.maxRecordSize, options.nullToken || undefined);
    this.info = this.#states.record.info;
  }

  /** Scans one buffer, or the rest with end = true; each record comes out through `push`. Returns the error that stops the file. */
  parse(chunk: Buffer | undefined, end: boolean, push: CsvPush): CsvError | undefined {
    const states = this.#states;
    if (states.error !== undefined || this.#done) return states.error;
    const tail = this.#tail;
    this.#tail = undefined;
    const buf =
      tail === undefined
        ? (chunk ?? NO_BYTES)
        : chunk === undefined || chunk.length === 0
          ? tail
          : Buffer.concat([tail, chunk]);
    let from = 0;
    if (!this.#bomChecked) {
      if (buf.length < 3 && !end) {
        this.#tail = Buffer.from(buf);
        return undefined;
      }
      this.#bomChecked = true;
      if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from = 3;
    }
    // each byte before `limit` can see the ones it needs after it: \n after \r, a delimiter after a closing quote
    const limit = end ? buf.length : buf.length - this.#delimiterBytes - 1;
    const pos = states.scan(buf, from, limit, push);
    if (states.error !== undefined) return states.error;
    if (pos > from) this.#lastByte = buf[pos - 1]!;
    if (end) {
      this.#done = true;
      return states.endInput(pos, this.#lastByte);
    }
    if (pos < buf.length) this.#tail = Buffer.from(buf.subarray(pos));
    return states.endChunk(pos);
  }
}
