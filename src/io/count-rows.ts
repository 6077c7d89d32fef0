/**
 * The shrink guard's count, taken before a run sends anything: the input's records, found by scanning its bytes
 * (no parsing into cells, no decoding; gzip data is inflated on the way). The last good run's reference is the
 * records it read, so records are compared with records: a CSV cell that spans lines (an address, a note) is one
 * record, not several lines (counting lines let an export cut from 1,000 such records to 400 pass as 1,200).
 *
 * CSV: a line break ends a record unless it is inside a quoted cell (a `"` at the start of a cell opens one, `""`
 * inside it is a quote, the next lone `"` closes it; a `"` inside an unquoted cell is data: csv-parse's
 * relax_quotes, as the reader runs it). Empty lines are not records. A line of spaces is counted, so the count
 * stays an upper bound on the records the run reads (the reader skips such a line): the guard may be lenient by a
 * few blank lines, never refuse a good file. NDJSON: lines. Only regular files are counted: standard input and
 * pipes can be read only once.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { iconv, isWideUnicode } from './input-encoding.js';
import type { InputFormat } from './source.js';

export interface RowCount {
  /** Records at most, the CSV header not counted. */
  rows: number;
}

export interface CountOptions {
  /** CSV: the delimiter the reader uses (a quote opens a quoted cell only at a cell's start). Default ",". */
  delimiter?: string;
  /** The text's encoding (iconv-lite name): UTF-16 and UTF-32 are decoded first; every other is ASCII-compatible. */
  encoding?: string;
}

/**
 * The count, or undefined for input that cannot be read twice (stdin, a pipe) or is not line-based (a JSON array,
 * a workbook).
 */
export async function countRows(
  path: string,
  format: InputFormat,
  options: CountOptions = {},
): Promise<RowCount | undefined> {
  if (path === '-' || format === 'json' || format === 'xlsx') return undefined;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const counter = format === 'csv' ? new CsvRecordCounter(options.delimiter ?? ',') : new LineCounter();
  // unreadable or broken gzip: no count here; the run itself reports the problem, with its line
  const records = await scan(path, counter, options.encoding).catch(() => undefined);
  if (records === undefined) return undefined;
  return { rows: Math.max(0, format === 'csv' ? records - 1 : records) };
}

interface Counter {
  feed(chunk: Buffer): void;
  /** Records seen, the last one counted even without a line break after it. */
  end(): number;
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function scan(path: string, counter: Counter, encoding: string | undefined): Promise<number> {
  const file = createReadStream(path, { highWaterMark: 1024 * 1024 });
  const source: Readable = (await isGzip(path)) ? file.pipe(createGunzip()) : file;
  // UTF-16/32 put other bytes beside each quote and line break (and 0x0A/0x22 inside other characters): decoded
  const decoder = encoding !== undefined && isWideUnicode(encoding) ? iconv().getDecoder(encoding) : undefined;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (chunk.length > 0) counter.feed(decoder ? Buffer.from(decoder.write(chunk), 'utf8') : chunk);
    }
  } finally {
    file.destroy();
  }
  return counter.end();
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/** NDJSON: one record per line (blank lines included: an upper bound). */
class LineCounter implements Counter {
  #lines = 0;
  #last = LF;

  feed(chunk: Buffer): void {
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) this.#lines++;
    this.#last = chunk[chunk.length - 1]!;
  }

  end(): number {
    return this.#last === LF ? this.#lines : this.#lines + 1;
  }
}

/**
 * CSV records: line breaks (\n, \r\n or a lone \r, as the reader takes them) outside quoted cells, after a line
 * that is not empty. The byte loop works on local copies of its state, written back once per chunk.
 */
export class CsvRecordCounter implements Counter {
  #records = 0;
  #inQuotes = false;
  /** Inside quotes, a `"` was the chunk's last byte: the next byte says whether it closed the cell or was doubled. */
  #quoteSeen = false;
  #cellStart = true;
  /** The current line has bytes: it is a record once it ends. */
  #content = false;
  readonly #delimiter: number;

  constructor(delimiter: string) {
    // a delimiter of several bytes in UTF-8 (none of , ; tab |) never starts a cell here: quotes after it are data
    const bytes = Buffer.from(delimiter, 'utf8');
    this.#delimiter = bytes.length === 1 ? bytes[0]! : -1;
  }

  /**
   * A chunk whose every CR is the first half of a CRLF (LF-only and CRLF files) is read by Buffer.indexOf, at
   * memory speed: quotes, then line breaks between them. Any other (lone CRs: old Mac files) byte by byte.
   */
  feed(chunk: Buffer): void {
    if (chunk.indexOf(CR) === -1 || count(chunk, CR) === countCrlf(chunk)) this.#spans(chunk);
    else this.#bytes(chunk);
  }

  #spans(chunk: Buffer): void {
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.#inQuotes) {
        if (this.#quoteSeen) {
          this.#quoteSeen = false;
          if (chunk[i] === QUOTE)
            i++; // "" inside a quoted cell
          else this.#inQuotes = false; // the quote closed the cell; this byte is read as outside it
          continue;
        }
        const quote = chunk.indexOf(QUOTE, i);
        if (quote === -1) return;
        this.#quoteSeen = true;
        i = quote + 1;
        continue;
      }
      const quote = chunk.indexOf(QUOTE, i);
      const end = quote === -1 ? length : quote;
      this.#lines(chunk, i, end);
      if (quote === -1) return;
      this.#content = true;
      this.#inQuotes = this.#cellStart;
      this.#cellStart = false;
      i = quote + 1;
    }
  }

  /** Bytes from..to, outside quotes and holding none, whose CRs all come right before an LF. */
  #lines(chunk: Buffer, from: number, to: number): void {
    if (to === from) return;
    let lineStart = from;
    for (let lf = chunk.indexOf(LF, from); lf !== -1 && lf < to; lf = chunk.indexOf(LF, lf + 1)) {
      const end = lf > lineStart && chunk[lf - 1] === CR ? lf - 1 : lf;
      if (this.#content || end > lineStart) this.#records++;
      this.#content = false;
      lineStart = lf + 1;
    }
    if (to > lineStart) this.#content = true;
    const last = chunk[to - 1]!;
    this.#cellStart = last === LF || last === this.#delimiter;
  }

  #bytes(chunk: Buffer): void {
    let records = this.#records;
    let inQuotes = this.#inQuotes;
    let quoteSeen = this.#quoteSeen;
    let cellStart = this.#cellStart;
    let content = this.#content;
    const delimiter = this.#delimiter;
    const length = chunk.length;
    for (let i = 0; i < length; i++) {
      const c = chunk[i]!;
      if (inQuotes) {
        if (!quoteSeen) {
          if (c === QUOTE) quoteSeen = true;
          continue;
        }
        quoteSeen = false;
        if (c === QUOTE) continue; // "" inside a quoted cell
        inQuotes = false; // the quote closed the cell; this byte is read as outside it
      }
      if (c === LF || c === CR) {
        if (content) records++; // (the \n of a \r\n follows a line the \r ended: empty)
        content = false;
        cellStart = true;
        continue;
      }
      content = true;
      if (c === QUOTE && cellStart) inQuotes = true;
      cellStart = c === delimiter;
    }
    this.#records = records;
    this.#inQuotes = inQuotes;
    this.#quoteSeen = quoteSeen;
    this.#cellStart = cellStart;
    this.#content = content;
  }

  end(): number {
    // a last record with no line break after it, or a quote never closed (the run reports that one)
    return this.#content || this.#inQuotes ? this.#records + 1 : this.#records;
  }
}

function count(chunk: Buffer, byte: number): number {
  let found = 0;
  for (let at = chunk.indexOf(byte); at !== -1; at = chunk.indexOf(byte, at + 1)) found++;
  return found;
}

const CRLF = Buffer.from('\r\n');

function countCrlf(chunk: Buffer): number {
  let found = 0;
  for (let at = chunk.indexOf(CRLF); at !== -1; at = chunk.indexOf(CRLF, at + 2)) found++;
  return found;
}
