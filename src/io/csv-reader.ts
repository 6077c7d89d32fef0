/**
 * CSV records as cell arrays, streamed chunk by chunk through csv-parse's core. The header is read before
 * `openCsv` resolves. Line numbers are physical lines where each record starts, tracked from csv-parse's
 * empty-line counter and, only when a record spans lines, from the newlines inside its cells.
 */
import { InputError } from '../errors.js';
import { detectDelimiter, normalizeDelimiter } from './csv-delimiter.js';
import { createCsvCore, type CsvError } from './csv-parser-core.js';
import { checkHeaders, rowLengthError } from './csv-rows.js';
import type { InputBytes } from './input-bytes.js';
import type { SourceRecord } from './source.js';
import type { Utf8LineChecker } from './utf8-check.js';
import { countCellNewlines, hexByte, invalidUtf8Error, MAX_RECORD_BYTES, maxSizeText, NOT_UTF8_HINT } from './record-limits.js';

export interface CsvRecords {
  headers: string[];
  delimiter: string;
  /** The records of each chunk read, as one array (never empty). */
  records: AsyncIterable<SourceRecord[]>;
}

/** Bytes gathered before choosing the delimiter: the header line must be in them. */
const HEAD_BYTES = 64 * 1024;

/** `utf8`: the checker that saw the (UTF-8) bytes, whose bad lines each record claims; none for decoded text. */
export async function openCsv(bytes: InputBytes, file: string, delimiterOption?: string, utf8?: Utf8LineChecker): Promise<CsvRecords> {
  const head = await readHead(bytes, file);
  const delimiter = delimiterOption !== undefined ? normalizeDelimiter(delimiterOption) : detectDelimiter(head.toString('utf8', 0, HEAD_BYTES));
  bytes.unshift(head);
  const parser = new CsvRecordParser(bytes, file, delimiter, utf8);
  const headers = await parser.readHeader();
  return { headers, delimiter, records: parser.records() };
}

/** The parse's named state: where the last record ended (for line numbers), the header, the records of a chunk. */
class CsvRecordParser {
  readonly #core: ReturnType<typeof createCsvCore>;
  #headers: string[] | undefined;
  #width = 0;
  #record = 0;
  #lastEnd = 0;
  #lastEmpty = 0;
  #lastParserLines = 0;
  #queue: SourceRecord[] = [];
  #ended = false;
  #lastByte = 0x0a;

  constructor(
    private readonly bytes: InputBytes,
    private readonly file: string,
    delimiter: string,
    private readonly utf8: Utf8LineChecker | undefined,
  ) {
    this.#core = createCsvCore({ delimiter, maxRecordSize: MAX_RECORD_BYTES });
  }

  async readHeader(): Promise<string[]> {
    while (this.#headers === undefined) {
      if (!(await this.#feed())) break;
    }
    if (this.#headers === undefined) throw emptyFile(this.file);
    return this.#headers;
  }

  async *records(): AsyncGenerator<SourceRecord[]> {
    try {
      for (;;) {
        const ready = this.#queue;
        this.#queue = [];
        if (ready.length > 0) yield ready;
        if (!(await this.#feed()) && this.#queue.length === 0) return;
      }
    } finally {
      await this.bytes.close();
    }
  }

  /** Called by csv-parse for each record (an arrow: bound once, not per call). */
  readonly #push = (cells: string[]): void => {
    const info = this.#core.info;
    const empty = info.empty_lines;
    const skipped = empty - this.#lastEmpty;
    const start = this.#lastEnd + 1 + skipped;
    // csv-parse's own count is only a hint that the record spans lines: it counts a quoted CRLF twice
    const end = info.lines - this.#lastParserLines > 1 + skipped ? start + countCellNewlines(cells) : start;
    this.#lastEnd = end;
    this.#lastEmpty = empty;
    this.#lastParserLines = info.lines;
    if (cells.length === 1 && this.#width !== 1 && cells[0]!.trim() === '') return; // a line of spaces is a blank line
    const bad = this.utf8?.claim(end);
    if (this.#headers === undefined) {
      const { file } = this;
      if (bad) throw new InputError(`${file} line ${bad.line}: the header is not valid UTF-8 (byte ${hexByte(bad.byte)} at byte offset ${bad.offset})`, { code: 'input-encoding', file, line: bad.line, hint: `${NOT_UTF8_HINT}.` });
      this.#headers = checkHeaders(cells, file, start);
      this.#width = this.#headers.length;
      return;
    }
    const entry: SourceRecord = { record: ++this.#record, line: start, raw: cells };
    if (bad) entry.error = invalidUtf8Error(bad);
    else if (cells.length !== this.#width) {
      const error = rowLengthError(cells, this.#width);
      if (error) entry.error = error;
    }
    this.#queue.push(entry);
  };

  /** Feeds the next chunk; false at the end of the input. */
  async #feed(): Promise<boolean> {
    if (this.#ended) return false;
    const chunk = await this.bytes.next();
    if (chunk === undefined) {
      this.#ended = true;
      const before = this.#queue.length;
      const error = this.#core.parse(undefined, true, this.#push);
      if (error) throw this.#failure(error);
      // a record only the end of the input closed had no line break after it
      if (this.#lastByte !== 0x0a && this.#lastByte !== 0x0d && this.#queue.length > before) this.#queue[this.#queue.length - 1]!.unterminated = true;
      return false;
    }
    if (chunk.length > 0) this.#lastByte = chunk[chunk.length - 1]!;
    const error = this.#core.parse(chunk, false, this.#push);
    if (error) throw this.#failure(error);
    return true;
  }

  #failure(error: CsvError): InputError {
    const { file } = this;
    const start = this.#lastEnd + 1 + (this.#core.info.empty_lines - this.#lastEmpty);
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      return new InputError(`${file} line ${start}: a quoted value is never closed (the file ends inside it)`, {
        code: 'input-csv', file, line: start,
        hint: 'A value that starts with " must end with "; a " inside a quoted value is written "".',
      });
    }
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      return new InputError(`${file} line ${start}: the record is larger than ${maxSizeText()} (a quote that is never closed?)`, {
        code: 'input-csv', file, line: start,
        hint: 'Check the quotes from that line on: a value that starts with " must end with ".',
      });
    }
    return new InputError(`${file} line ${start}: ${error.message}`, { code: 'input-csv', file, line: start });
  }
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

function emptyFile(file: string): InputError {
  return new InputError(`${file} is empty: no header line`, {
    code: 'input-empty', file, line: 1,
    hint: 'A CSV file starts with a header line naming its columns (memberId,isActive,createdAt,...); `memberctl template` writes one.',
  });
}
