/**
 * CSV bytes to records, synchronously, one chunk at a time: the CSV scanner, physical line numbers, the UTF-8
 * check, the header's checks and the rule for rows of another length. It knows nothing of where the bytes come
 * from, so the same code runs on the main thread (csv-reader.ts) and in the parsing worker (csv-worker.ts).
 *
 * Line numbers are physical lines where each record starts, tracked from the scanner's empty-line counter and, only
 * when a record spans lines, from the newlines inside its cells.
 */
import { InputError } from '../errors.js';
import { createCsvCore, type CsvError } from './csv-parser-core.js';
import type { SourceRecord } from './source.js';
import type { BadByte, Utf8LineChecker } from './utf8-check.js';
import {
  countCellNewlines,
  hexByte,
  invalidUtf8Error,
  MAX_RECORD_BYTES,
  maxSizeText,
  NOT_UTF8_HINT,
} from './record-limits.js';

/**
 * `utf8`: the checker that saw the (UTF-8) bytes, whose bad lines each record claims as it is parsed; none for
 * decoded text, and none in the worker, whose records are claimed on the main thread by their last line (`ends`).
 */
export class CsvRecordCore {
  readonly #core: ReturnType<typeof createCsvCore>;
  #headers: string[] | undefined;
  /** The header's first and last physical lines. */
  #headerLines = { start: 0, end: 0 };
  #width = 0;
  #record = 0;
  #lastEnd = 0;
  #lastEmpty = 0;
  #lastParserLines = 0;
  #queue: SourceRecord[] = [];
  /** The physical line each queued record ends on. */
  #ends: number[] = [];
  #ended = false;
  #lastByte = 0x0a;

  /**
   * `uncheckedHeader`: keep the header's cells as read, for the caller to check (checkHeaderLine) once it knows
   * whether the header's line is UTF-8: the worker's case. `padShortRows`: --pad-short-rows (checkRowLength).
   */
  constructor(
    private readonly file: string,
    delimiter: string,
    private readonly utf8?: Utf8LineChecker,
    private readonly uncheckedHeader = false,
    private readonly padShortRows = false,
    nullToken?: string,
  ) {
    this.#core = createCsvCore({ delimiter, maxRecordSize: MAX_RECORD_BYTES, nullToken });
  }

  /** The header's cells, once its line has been parsed. */
  get headers(): string[] | undefined {
    return this.#headers;
  }

  get headerLines(): { start: number; end: number } {
    return this.#headerLines;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The records parsed since the last call (the header is not one), with the line each ends on. */
  take(): { records: SourceRecord[]; ends: number[] } {
    const taken = { records: this.#queue, ends: this.#ends };
    this.#queue = [];
    this.#ends = [];
    return taken;
  }

  /** Parses one chunk of bytes. Throws an InputError for a broken file (a header that is not UTF-8, a quote never closed). */
  parse(chunk: Buffer): void {
    if (chunk.length > 0) this.#lastByte = chunk[chunk.length - 1]!;
    const error = this.#core.parse(chunk, false, this.#push);
    if (error) throw this.#failure(error);
  }

  /** The input ended: flushes the last record. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const before = this.#queue.length;
    const error = this.#core.parse(undefined, true, this.#push);
    if (error) throw this.#failure(error);
    // a record only the end of the input closed had no line break after it
    if (this.#lastByte !== 0x0a && this.#lastByte !== 0x0d && this.#queue.length > before)
      this.#queue[this.#queue.length - 1]!.unterminated = true;
  }

  /** Called by the scanner for each record (an arrow: bound once, not per call). */
  readonly #push = (cells: string[], quotedNullTokens: number[] | undefined): void => {
    const info = this.#core.info;
    const empty = info.empty_lines;
    const skipped = empty - this.#lastEmpty;
    const start = this.#lastEnd + 1 + skipped;
    // the scanner's line count (csv-parse's) is only a hint that the record spans lines: it counts a quoted CRLF twice
    const end = info.lines - this.#lastParserLines > 1 + skipped ? start + countCellNewlines(cells) : start;
    this.#lastEnd = end;
    this.#lastEmpty = empty;
    this.#lastParserLines = info.lines;
    if (cells.length === 1 && this.#width !== 1 && cells[0]!.trim() === '') return; // a line of spaces is a blank line
    const bad = this.utf8?.claim(end);
    if (this.#headers === undefined) {
      this.#headers = this.uncheckedHeader ? cells : checkHeaderLine(this.file, cells, start, bad);
      this.#width = this.#headers.length;
      this.#headerLines = { start, end };
      return;
    }
    const entry: SourceRecord = { record: ++this.#record, line: start, raw: cells };
    const length = cells.length !== this.#width ? checkRowLength(cells, this.#width, this.padShortRows) : undefined;
    if (length === 'padded') entry.padded = true;
    if (quotedNullTokens) entry.quotedNullTokens = quotedNullTokens;
    if (bad) entry.error = invalidUtf8Error(bad);
    else if (length !== undefined && length !== 'padded') entry.error = length;
    this.#queue.push(entry);
    this.#ends.push(end);
  };

  #failure(error: CsvError): InputError {
    const { file } = this;
    const start = this.#lastEnd + 1 + (this.#core.info.empty_lines - this.#lastEmpty);
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      return new InputError(`${file} line ${start}: a quoted value is never closed (the file ends inside it)`, {
        code: 'input-csv',
        file,
        line: start,
        hint: 'A value that starts with " must end with "; a " inside a quoted value is written "".',
      });
    }
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      return new InputError(
        `${file} line ${start}: the record is larger than ${maxSizeText()} (a quote that is never closed?)`,
        {
          code: 'input-csv',
          file,
          line: start,
          hint: 'Check the quotes from that line on: a value that starts with " must end with ".',
        },
      );
    }
    return new InputError(`${file} line ${start}: ${error.message}`, { code: 'input-csv', file, line: start });
  }
}

/**
 * The header's names, trimmed. An InputError when its line is not UTF-8 (`bad`), or when a name repeats: it names
 * both columns (which one holds the data?).
 */
export function checkHeaderLine(file: string, cells: string[], line: number, bad: BadByte | undefined): string[] {
  if (bad) throw headerNotUtf8(file, bad);
  const headers = cells.map((cell) => cell.trim());
  const firstColumn = new Map<string, number>();
  const duplicates: string[] = [];
  headers.forEach((name, index) => {
    const first = firstColumn.get(name);
    if (first === undefined) firstColumn.set(name, index + 1);
    else duplicates.push(`${quotedHeader(name)} (columns ${first} and ${index + 1})`);
  });
  if (duplicates.length > 0) {
    throw new InputError(
      `${file} line ${line}: duplicate column${duplicates.length > 1 ? 's' : ''} ${duplicates.join(', ')}`,
      {
        code: 'input-duplicate-headers',
        file,
        line,
        hint: 'Each column needs its own name: rename or remove the repeated one.',
      },
    );
  }
  return headers;
}

function headerNotUtf8(file: string, bad: BadByte): InputError {
  return new InputError(
    `${file} line ${bad.line}: the header is not valid UTF-8 (byte ${hexByte(bad.byte)} at byte offset ${bad.offset})`,
    {
      code: 'input-encoding',
      file,
      line: bad.line,
      hint: `${NOT_UTF8_HINT}.`,
    },
  );
}

/** A header's name for a message: quoted, its first 60 characters (a broken file's "name" can be megabytes). */
export function quotedHeader(name: string): string {
  return `"${name.length > 60 ? `${name.slice(0, 60)}…` : name}"`;
}

/** Why a short row is refused, and the way out for an export that leaves out trailing empty cells. */
const SHORT_ROW_HINT =
  'a value left out in the middle shifts every cell after it; if the export leaves out trailing empty cells, --pad-short-rows reads them as empty';

/**
 * A row of another width than the header. Short: refused (a cell left out in the middle would shift the others
 * under the wrong headers), unless `padShortRows` (--pad-short-rows), which fills the missing trailing cells with
 * '' and says so (`padded`). Surplus cells that are empty (a trailing delimiter) are dropped, as no data is lost;
 * a surplus cell with content makes the record unreadable. A refused row keeps its cells as read (the rejects file
 * writes them back as they are); `cells` changes only to the header's width. No Error object: a file of short
 * rows costs a few strings per row (docs/performance.md).
 */
export function checkRowLength(
  cells: string[],
  width: number,
  padShortRows: boolean,
): { message: string; hint: string } | 'padded' | undefined {
  if (cells.length < width) {
    if (!padShortRows)
      return { message: `the row has ${cells.length} cells but the header has ${width}`, hint: SHORT_ROW_HINT };
    while (cells.length < width) cells.push('');
    return 'padded';
  }
  let firstExtra = -1;
  for (let i = width; i < cells.length; i++) {
    if (cells[i]!.trim() !== '') {
      firstExtra = i;
      break;
    }
  }
  if (firstExtra === -1) {
    cells.length = width;
    return undefined;
  }
  const value = cells[firstExtra]!.trim();
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return {
    message: `the row has ${cells.length} cells but the header has ${width} (cell ${firstExtra + 1} is "${shown}")`,
    hint: 'a value containing the delimiter must be quoted, e.g. "Smith, John"',
  };
}
