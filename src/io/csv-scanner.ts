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
 * An ASCII cell of fewer than 13 bytes is cut from the chunk's bytes read once as latin1 (V8 copies a substring that
 * short); a longer one is read from its bytes on its own, so that no cell keeps the chunk's string alive (a row held
 * behind its member's earlier row would keep a 64 KB chunk; docs/performance.md, "Unpacking the worker's cells"),
 * and a cell with any byte above 0x7F is decoded as UTF-8 on its own (Buffer's decoder, csv-parse's).
 */

export type CsvErrorCode = 'CSV_QUOTE_NOT_CLOSED' | 'CSV_MAX_RECORD_SIZE';

/** A file the scanner cannot read on: no stack trace is wanted, but an Error is what callers expect to hold. */
export class CsvError extends Error {
  constructor(
    readonly code: CsvErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type CsvPush = (cells: string[], quotedNullTokens: number[] | undefined) => void;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A quoted cell closed before a delimiter, a line break, a NUL byte or the end: its text is `seg..segEnd`. */
const CLOSED = 3;
/** SlicedString::kMinLength in V8: a shorter substring is a copy of its own. */
const COPIED_BELOW = 13;
const EMPTY = Buffer.alloc(0);

type Slice = (this: Buffer, start: number, end: number) => string;
/** Buffer's own decoders, which toString(encoding, start, end) calls after checking its arguments (csv-worker-messages.ts). */
const decoders = Buffer.prototype as unknown as { latin1Slice?: Slice; utf8Slice?: Slice };
const latin1: Slice =
  decoders.latin1Slice ??
  function (this: Buffer, start, end) {
    return this.toString('latin1', start, end);
  };
const utf8: Slice =
  decoders.utf8Slice ??
  function (this: Buffer, start, end) {
    return this.toString('utf8', start, end);
  };

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
  readonly info = { lines: 1, empty_lines: 0 };
  readonly #delimiter: Buffer;
  readonly #d0: number;
  readonly #dLen: number;
  readonly #max: number;
  readonly #nullToken: string | undefined;
  #push: CsvPush = () => undefined;
  /** Bytes not scanned yet: the last ones of a chunk, which need what follows to be read. */
  #tail: Buffer | undefined;
  #bomChecked = false;
  #lastByte = -1;
  #done = false;
  #error: CsvError | undefined;
  // the record being read: its cells, its quoted null tokens, its bytes before this buffer, its start in it
  #cells: string[] = [];
  #nulls: number[] | undefined;
  #recordBytes = 0;
  #recordStart = 0;
  // the cell being read: its text so far from earlier buffers or segments (`parts`), its segment in this buffer
  #state = FIELD_START;
  #wasQuoting = false;
  #prepended = false;
  /** The cell has bytes in `acc` (from earlier buffers, before an escaped quote, before a NUL). */
  #hasParts = false;
  /** Those bytes, `accBytes` of them, in one buffer that grows by doubling (a cell of 10 MB of `""` is 5 MB here). */
  #acc: Buffer | undefined;
  #accBytes = 0;
  #seg = 0;
  #segEnd = 0;
  /** The cell's segment has a byte above 0x7F: it is decoded as UTF-8, not cut from the latin1 text. */
  #wide = false;
  // the buffer being scanned, and its bytes as latin1 (decoded once, when a short cell first needs it)
  #buf: Buffer = EMPTY;
  #text: string | undefined;

  constructor(options: CsvScannerOptions) {
    this.#delimiter = Buffer.from(options.delimiter, 'utf8');
    if (options.delimiter.length !== 1) throw new Error('CsvScanner: the delimiter is one character');
    this.#d0 = this.#delimiter[0]!;
    this.#dLen = this.#delimiter.length;
    this.#max = options.maxRecordSize;
    // an empty token finds nothing (as csv-parse was driven)
    this.#nullToken = options.nullToken || undefined;
  }

  /** Scans one buffer, or the rest with end = true; each record comes out through `push`. Returns the error that stops the file. */
  parse(chunk: Buffer | undefined, end: boolean, push: CsvPush): CsvError | undefined {
    if (this.#error !== undefined || this.#done) return this.#error;
    this.#push = push;
    const tail = this.#tail;
    this.#tail = undefined;
    const buf =
      tail === undefined
        ? (chunk ?? EMPTY)
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
    const limit = end ? buf.length : buf.length - this.#dLen - 1;
    this.#buf = buf;
    this.#text = undefined;
    this.#recordStart = from;
    const pos = limit > from ? this.#scan(from, limit) : from;
    if (this.#error !== undefined) return this.#error;
    if (pos > from) this.#lastByte = buf[pos - 1]!;
    if (end) {
      this.#done = true;
      return this.#finish(pos);
    }
    return this.#carry(pos);
  }

  #scan(start: number, limit: number): number {
    let pos = start;
    while (pos < limit && this.#error === undefined) {
      const state = this.#state;
      if (state <= UNQUOTED && this.#dLen === 1 && !this.#hasParts && !this.#prepended) {
        if (state === FIELD_START && this.#buf[pos] !== QUOTE) this.#mark(pos);
        const next = state === UNQUOTED || this.#buf[pos] !== QUOTE ? this.#plainCells(pos, limit) : pos;
        if (next !== pos) {
          pos = next;
          continue;
        }
      }
      if (state === FIELD_START) pos = this.#fieldStart(pos);
      else if (state === UNQUOTED) pos = this.#unquoted(pos, limit);
      else if (state === QUOTED) pos = this.#quoted(pos, limit);
      else pos = this.#closed(pos);
    }
    return pos;
  }

  #fieldStart(pos: number): number {
    const b = this.#buf[pos]!;
    if (b === QUOTE) {
      this.#state = QUOTED;
      this.#mark(pos + 1);
      return pos + 1;
    }
    this.#mark(pos);
    if (b === LF || b === CR) return this.#recordEnd(pos, pos);
    if (b === this.#d0 && this.#isDelimiter(pos)) {
      this.#endField(pos);
      return pos + this.#dLen;
    }
    this.#state = UNQUOTED;
    return pos;
  }

  /**
   * The common case in one loop: unquoted cells with a one-byte delimiter, until a line ends, a quote opens a cell,
   * or the record grows large enough for max_record_size to matter. The cell at `pos` is marked and has no parts.
   */
  #plainCells(pos: number, limit: number): number {
    const buf = this.#buf;
    const d0 = this.#d0;
    const cells = this.#cells;
    const sizeEnd = this.#max > 0 ? this.#recordStart + this.#max - this.#recordBytes : limit;
    let seg = this.#seg;
    let high = this.#wide ? 0x80 : 0;
    let i = pos;
    for (; i < limit; i++) {
      const b = buf[i]!;
      if (b === d0) {
        if (i > sizeEnd) break;
        cells.push(this.#cut(seg, i, high >= 0x80));
        seg = i + 1;
        high = 0;
        if (buf[seg] === QUOTE) {
          i = seg;
          break;
        }
      } else if (b === LF || b === CR) break;
      else high |= b;
    }
    if (i === pos) return pos;
    this.#seg = seg;
    this.#wide = high >= 0x80;
    this.#state = seg === i ? FIELD_START : UNQUOTED;
    return i;
  }

  /** An unquoted cell's bytes up to the delimiter or line break (a quote among them is data). */
  #unquoted(pos: number, limit: number): number {
    const buf = this.#buf;
    const d0 = this.#d0;
    const single = this.#dLen === 1;
    let high = 0;
    let i = pos;
    for (; i < limit; i++) {
      const b = buf[i]!;
      if (b === d0 && (single || this.#isDelimiter(i))) break;
      if (b === LF || b === CR) break;
      high |= b;
    }
    if (high >= 0x80) this.#wide = true;
    if (i === limit) return i;
    if (buf[i] === d0 && (single || this.#isDelimiter(i))) {
      this.#endField(i);
      return i + this.#dLen;
    }
    return this.#recordEnd(i, i);
  }

  /** A quoted cell's bytes up to its next quote; each line break in it counts a line. */
  #quoted(pos: number, limit: number): number {
    const buf = this.#buf;
    let lines = 0;
    let high = 0;
    let i = pos;
    for (; i < limit; i++) {
      const b = buf[i]!;
      if (b === QUOTE) break;
      if (b === LF || b === CR) lines++;
      high |= b;
    }
    if (high >= 0x80) this.#wide = true;
    this.info.lines += lines;
    return i === limit ? i : this.#quote(i);
  }

  /** A quote inside a quoted cell: an escaped quote, the cell's end, or (relax_quotes) data. */
  #quote(i: number): number {
    const next = this.#buf[i + 1];
    if (next === QUOTE) {
      this.#keep(i + 1);
      this.#mark(i + 2);
      return i + 2;
    }
    this.#wasQuoting = true;
    // csv-parse closes on a "falsy" next byte: the end of the input, or a NUL
    if (
      next === undefined ||
      next === 0 ||
      next === LF ||
      next === CR ||
      (next === this.#d0 && this.#isDelimiter(i + 1))
    ) {
      this.#state = CLOSED;
      this.#segEnd = i;
      return i + 1;
    }
    this.#prepended = true;
    this.#state = UNQUOTED;
    return i + 1;
  }

  /** After a closing quote: the delimiter, a line break, or a NUL, after which the cell goes on unquoted. */
  #closed(pos: number): number {
    const b = this.#buf[pos]!;
    if (b === this.#d0 && this.#isDelimiter(pos)) {
      this.#endField(this.#segEnd);
      return pos + this.#dLen;
    }
    if (b === LF || b === CR) return this.#recordEnd(pos, this.#segEnd);
    this.#keep(this.#segEnd);
    this.#mark(pos);
    this.#state = UNQUOTED;
    return pos;
  }

  /** A line break outside quotes at `pos`: the record ends with its cell at `end` (or the line was empty). */
  #recordEnd(pos: number, end: number): number {
    const info = this.info;
    if (this.#state === FIELD_START && this.#cells.length === 0) info.empty_lines++;
    else {
      this.#endField(end);
      if (this.#error !== undefined) return pos;
      this.#push(this.#cells, this.#nulls);
      this.#cells = [];
      this.#nulls = undefined;
    }
    info.lines++;
    const next = this.#buf[pos] === CR && this.#buf[pos + 1] === LF ? pos + 2 : pos + 1;
    this.#recordStart = next;
    this.#recordBytes = 0;
    return next;
  }

  #endField(end: number): void {
    if (this.#max > 0 && this.#recordBytes + (end - this.#recordStart) > this.#max && this.#tooLarge(end)) return;
    const cell = !this.#hasParts && !this.#prepended ? this.#cut(this.#seg, end, this.#wide) : this.#joined(end);
    if (this.#wasQuoting && this.#nullToken !== undefined && cell.trim() === this.#nullToken)
      (this.#nulls ??= []).push(this.#cells.length);
    this.#cells.push(cell);
    this.#state = FIELD_START;
    this.#wasQuoting = false;
    this.#prepended = false;
    this.#hasParts = false;
  }

  /** The cell `start..end` of this buffer: cut from its latin1 text (short and ASCII), or read on its own. */
  #cut(start: number, end: number, wide: boolean): string {
    if (wide) return utf8.call(this.#buf, start, end);
    if (end - start >= COPIED_BELOW) return latin1.call(this.#buf, start, end);
    if (end === start) return '';
    this.#text ??= latin1.call(this.#buf, 0, this.#buf.length);
    return this.#text.slice(start, end);
  }

  /** The cell's text from its parts (a cell across buffers, with an escaped quote, or reopened): decoded whole. */
  #joined(end: number): string {
    this.#keep(end);
    const text = utf8.call(this.#acc!, 0, this.#accBytes);
    this.#accBytes = 0;
    if (this.#acc!.length > 1 << 20) this.#acc = undefined; // a large cell's room is not kept for the next
    return this.#prepended ? `"${text}` : text;
  }

  /**
   * csv-parse refuses a byte of a cell when the record's earlier cells (their length in UTF-16 units) and the
   * cell's bytes before it exceed max_record_size: a cell of L bytes fails when earlier + L - 1 > max.
   */
  #tooLarge(end: number): boolean {
    const bytes = this.#accBytes + (end - this.#seg) + (this.#prepended ? 1 : 0);
    let earlier = 0;
    for (const cell of this.#cells) earlier += cell.length;
    if (bytes === 0 || earlier + bytes - 1 <= this.#max) return false;
    this.#error = new CsvError(
      'CSV_MAX_RECORD_SIZE',
      `Max Record Size: record exceed the maximum number of tolerated bytes of ${this.#max} at line ${this.info.lines}`,
    );
    return true;
  }

  /** The end of a buffer that is not the input's last: keeps what the next one needs. */
  #carry(pos: number): CsvError | undefined {
    const buf = this.#buf;
    if (pos < buf.length) this.#tail = Buffer.from(buf.subarray(pos));
    const state = this.#state;
    if (state === UNQUOTED || state === QUOTED) this.#keep(pos);
    else if (state === CLOSED) this.#keep(this.#segEnd);
    if (state !== FIELD_START) this.#hasParts = true;
    this.#seg = this.#segEnd = 0;
    if (state !== FIELD_START || this.#cells.length > 0) {
      this.#recordBytes += pos - this.#recordStart;
      if (this.#max > 0 && state !== FIELD_START && this.#recordBytes > this.#max) this.#tooLarge(0);
    } else this.#recordBytes = 0;
    this.#buf = EMPTY;
    this.#text = undefined;
    return this.#error;
  }

  /** The end of the input: the last record, or a quote never closed. */
  #finish(pos: number): CsvError | undefined {
    const state = this.#state;
    if (state === QUOTED) {
      if (this.#max > 0 && this.#tooLarge(pos)) return this.#error;
      return (this.#error = new CsvError(
        'CSV_QUOTE_NOT_CLOSED',
        `Quote Not Closed: the parsing is finished with an opening quote at line ${this.info.lines}`,
      ));
    }
    if (state === FIELD_START && this.#cells.length === 0) {
      if (this.#lastByte === LF || this.#lastByte === CR) this.info.empty_lines++;
      return undefined;
    }
    if (state === CLOSED) this.#endField(this.#segEnd);
    else {
      if (state === FIELD_START) this.#mark(pos);
      this.#endField(pos);
    }
    if (this.#error !== undefined) return this.#error;
    this.#push(this.#cells, this.#nulls);
    this.#cells = [];
    this.#buf = EMPTY;
    this.#text = undefined;
    return undefined;
  }

  /** A cell's (next) segment starts at `pos`. */
  #mark(pos: number): void {
    this.#seg = pos;
    this.#wide = false;
  }

  /** Copies the cell's text so far (`seg..end`) after its earlier bytes (`acc`): the buffer goes, or a gap follows. */
  #keep(end: number): void {
    const length = end - this.#seg;
    const need = this.#accBytes + length;
    if (this.#acc === undefined || this.#acc.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(256, need, 2 * (this.#acc?.length ?? 0)));
      this.#acc?.copy(grown, 0, 0, this.#accBytes);
      this.#acc = grown;
    }
    this.#buf.copy(this.#acc, this.#accBytes, this.#seg, end);
    this.#accBytes = need;
    this.#hasParts = true;
  }

  #isDelimiter(pos: number): boolean {
    const delimiter = this.#delimiter;
    for (let j = 0; j < delimiter.length; j++) if (this.#buf[pos + j] !== delimiter[j]) return false;
    return true;
  }
}
