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
import { Utf8LineChecker } from './utf8-check.js';
import { countCellNewlines, invalidUtf8Error, MAX_RECORD_BYTES, maxSizeText } from './record-limits.js';

export interface CsvRecords {
  headers: string[];
  delimiter: string;
  /** The records of each chunk read, as one array (never empty). */
  records: AsyncIterable<SourceRecord[]>;
}

/** Bytes gathered before choosing the delimiter: the header line must be in them. */
const HEAD_BYTES = 64 * 1024;

export async function openCsv(bytes: InputBytes, file: string, delimiterOption?: string): Promise<CsvRecords> {
  const head = await readHead(bytes, file);
  const delimiter = delimiterOption !== undefined ? normalizeDelimiter(delimiterOption) : detectDelimiter(head.toString('utf8', 0, HEAD_BYTES));
  bytes.unshift(head);
  const core = createCsvCore({ delimiter, maxRecordSize: MAX_RECORD_BYTES });
  const info = core.info;
  const utf8 = new Utf8LineChecker();
  let headers: string[] | undefined;
  let width = 0;
  let record = 0;
  let lastEnd = 0;
  let lastEmpty = 0;
  let lastParserLines = 0;
  let queue: SourceRecord[] = [];

  function push(cells: string[]): void {
    const empty = info.empty_lines;
    const skipped = empty - lastEmpty;
    const start = lastEnd + 1 + skipped;
    // csv-parse's own count is only a hint that the record spans lines: it counts a quoted CRLF twice
    const end = info.lines - lastParserLines > 1 + skipped ? start + countCellNewlines(cells) : start;
    lastEnd = end;
    lastEmpty = empty;
    lastParserLines = info.lines;
    if (cells.length === 1 && width !== 1 && cells[0]!.trim() === '') return; // a line of spaces is a blank line
    const bad = utf8.claim(end);
    if (headers === undefined) {
      if (bad) throw new InputError(`${file} line ${bad.line}: the header is not valid UTF-8`, { code: 'input-encoding', file, line: bad.line, hint: invalidUtf8Error(bad).hint });
      headers = checkHeaders(cells, file, start);
      width = headers.length;
      return;
    }
    const entry: SourceRecord = { record: ++record, line: start, raw: cells };
    if (bad) entry.error = invalidUtf8Error(bad);
    else if (cells.length !== width) {
      const error = rowLengthError(cells, width);
      if (error) entry.error = error;
    }
    queue.push(entry);
  }

  function failure(error: CsvError): InputError {
    const start = lastEnd + 1 + (info.empty_lines - lastEmpty);
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

  /** Feeds the next chunk; false at the end of the input. */
  let ended = false;
  let lastByte = 0x0a;
  async function feed(): Promise<boolean> {
    if (ended) return false;
    const chunk = await bytes.next();
    if (chunk === undefined) {
      ended = true;
      utf8.end();
      const before = queue.length;
      const error = core.parse(undefined, true, push);
      if (error) throw failure(error);
      // a record only the end of the input closed had no line break after it
      if (lastByte !== 0x0a && lastByte !== 0x0d && queue.length > before) queue[queue.length - 1]!.unterminated = true;
      return false;
    }
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1]!;
    utf8.check(chunk);
    const error = core.parse(chunk, false, push);
    if (error) throw failure(error);
    return true;
  }

  while (headers === undefined) {
    if (!(await feed())) break;
  }
  if (headers === undefined) throw emptyFile(file);

  async function* records(): AsyncGenerator<SourceRecord[]> {
    try {
      for (;;) {
        const ready = queue;
        queue = [];
        if (ready.length > 0) yield ready;
        if (!(await feed()) && queue.length === 0) return;
      }
    } finally {
      await bytes.close();
    }
  }
  return { headers, delimiter, records: records() };
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
