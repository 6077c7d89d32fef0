/**
 * The CSV scanner's state machine (csv-scanner.ts says what it reproduces of csv-parse, quirks included): it walks
 * a chunk's bytes in one of four states and hands each cell (csv-scan-cell.ts: its segment, its gathered parts, its
 * text) to the record being read (csv-scan-record.ts). A cell or record that runs past a chunk's end is carried into
 * the next chunk; the chunk's last bytes, which need what follows to be read, are the scanner's to keep.
 */
import { type CsvError, quoteNotClosed } from './csv-error.js';
import { ScanCell } from './csv-scan-cell.js';
import { type CsvPush, ScanRecord } from './csv-scan-record.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A quoted cell closed before a delimiter, a line break, a NUL byte or the end: its text is `seg..segEnd`. */
const CLOSED = 3;

export class CsvScanStates {
  readonly record: ScanRecord;
  /** The error that stops the file, once one does. */
  error: CsvError | undefined;
  readonly #cell = new ScanCell();
  #state = FIELD_START;
  readonly #delimiter: Buffer;
  readonly #d0: number;
  readonly #dLen: number;
  #push: CsvPush = () => undefined;

  /** `delimiter`: its UTF-8 bytes; `maxRecordSize` 0: no limit; `nullToken`: report the quoted cells equal to it. */
  constructor(delimiter: Buffer, maxRecordSize: number, nullToken: string | undefined) {
    this.#delimiter = delimiter;
    this.#d0 = delimiter[0]!;
    this.#dLen = delimiter.length;
    this.record = new ScanRecord(maxRecordSize, nullToken);
  }

  /** Scans `chunk` from `from` up to `limit`; each record goes out through `push`. Returns where it stopped. */
  scan(chunk: Buffer, from: number, limit: number, push: CsvPush): number {
    this.#push = push;
    this.#cell.load(chunk);
    this.record.start = from;
    return limit > from ? this.#run(from, limit) : from;
  }

  #run(start: number, limit: number): number {
    const cell = this.#cell;
    let pos = start;
    while (pos < limit && this.error === undefined) {
      const state = this.#state;
      if (state <= UNQUOTED && this.#dLen === 1 && !cell.hasParts && !cell.prepended) {
        if (state === FIELD_START && cell.chunk[pos] !== QUOTE) cell.mark(pos);
        const next = state === UNQUOTED || cell.chunk[pos] !== QUOTE ? this.#plainCells(pos, limit) : pos;
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
    const b = this.#cell.chunk[pos]!;
    if (b === QUOTE) {
      this.#state = QUOTED;
      this.#cell.mark(pos + 1);
      return pos + 1;
    }
    this.#cell.mark(pos);
    if (b === LF || b === CR) return this.#recordEnd(pos, pos);
    if (b === this.#d0 && this.#isDelimiter(pos)) {
      this.#endField(pos);
      return pos + this.#dLen;
    }
    this.#state = UNQUOTED;
    return pos;
  }

  #plainCells(pos: number, limit: number): number {
    const cell = this.#cell;
    const buf = cell.chunk;
    const d0 = this.#d0;
    const record = this.record;
    const cells = record.cells;
    const max = record.maxSize;
    const sizeEnd = max > 0 ? record.start + max - record.bytesBefore : limit;
    let seg = cell.seg;
    let high = cell.wide ? 0x80 : 0;
    let i = pos;
    for (; i < limit; i++) {
      const b = buf[i]!;
      if (b === d0) {
        if (i > sizeEnd) break;
        cells.push(cell.cut(seg, i, high >= 0x80));
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
    cell.seg = seg;
    cell.wide = high >= 0x80;
    this.#state = seg === i ? FIELD_START : UNQUOTED;
    return i;
  }

  /** An unquoted cell's bytes up to the delimiter or line break (a quote among them is data). */
  #unquoted(pos: number, limit: number): number {
    const buf = this.#cell.chunk;
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
    if (high >= 0x80) this.#cell.wide = true;
    if (i === limit) return i;
    if (buf[i] === d0 && (single || this.#isDelimiter(i))) {
      this.#endField(i);
      return i + this.#dLen;
    }
    return this.#recordEnd(i, i);
  }

  /** A quoted cell's bytes up to its next quote; each line break in it counts a line. */
  #quoted(pos: number, limit: number): number {
    const buf = this.#cell.chunk;
    let lines = 0;
    let high = 0;
    let i = pos;
    for (; i < limit; i++) {
      const b = buf[i]!;
      if (b === QUOTE) break;
      if (b === LF || b === CR) lines++;
      high |= b;
    }
    if (high >= 0x80) this.#cell.wide = true;
    this.record.info.lines += lines;
    return i === limit ? i : this.#quote(i);
  }

  /** A quote inside a quoted cell: an escaped quote, the cell's end, or (relax_quotes) data. */
  #quote(i: number): number {
    const cell = this.#cell;
    const next = cell.chunk[i + 1];
    if (next === QUOTE) {
      cell.keep(i + 1);
      cell.mark(i + 2);
      return i + 2;
    }
    cell.wasQuoting = true;
    // csv-parse closes on a "falsy" next byte: the end of the input, or a NUL
    const lineEnds = next === undefined || next === 0 || next === LF || next === CR;
    if (lineEnds || (next === this.#d0 && this.#isDelimiter(i + 1))) {
      this.#state = CLOSED;
      cell.segEnd = i;
      return i + 1;
    }
    cell.prepended = true;
    this.#state = UNQUOTED;
    return i + 1;
  }

  /** After a closing quote: the delimiter, a line break, or a NUL, after which the cell goes on unquoted. */
  #closed(pos: number): number {
    const cell = this.#cell;
    const b = cell.chunk[pos]!;
    if (b === this.#d0 && this.#isDelimiter(pos)) {
      this.#endField(cell.segEnd);
      return pos + this.#dLen;
    }
    if (b === LF || b === CR) return this.#recordEnd(pos, cell.segEnd);
    cell.keep(cell.segEnd);
    cell.mark(pos);
    this.#state = UNQUOTED;
    return pos;
  }

  /** A line break outside quotes at `pos`: the record ends with its cell at `end` (or the line was empty). */
  #recordEnd(pos: number, end: number): number {
    const record = this.record;
    if (this.#state === FIELD_START && record.cells.length === 0) record.info.empty_lines++;
    else {
      this.#endField(end);
      if (this.error !== undefined) return pos;
      record.emit(this.#push);
    }
    return record.lineBreak(this.#cell.chunk, pos);
  }

  #endField(end: number): void {
    const record = this.record;
    if (record.mayExceed(end) && this.#tooLarge(end)) return;
    const quoted = this.#cell.wasQuoting; // text() starts the next cell afresh
    record.add(this.#cell.text(end), quoted);
    this.#state = FIELD_START;
  }

  #tooLarge(end: number): boolean {
    this.error = this.record.refuse(this.#cell.bytes(end));
    return this.error !== undefined;
  }

  /** The end of a chunk that is not the input's last: the cell and record read so far go on in the next. */
  endChunk(pos: number): CsvError | undefined {
    const state = this.#state;
    this.#cell.carryOver(state === CLOSED ? this.#cell.segEnd : state === FIELD_START ? undefined : pos);
    if (this.record.carryOver(pos, state !== FIELD_START)) this.#tooLarge(0);
    return this.error;
  }

  /** The end of the input at `pos` (`lastByte`: the input's last): the last record, or a quote never closed. */
  endInput(pos: number, lastByte: number): CsvError | undefined {
    const record = this.record;
    const state = this.#state;
    if (state === QUOTED) {
      if (record.maxSize > 0 && this.#tooLarge(pos)) return this.error;
      return (this.error = quoteNotClosed(record.info.lines));
    }
    if (state === FIELD_START && record.cells.length === 0) {
      if (lastByte === LF || lastByte === CR) record.info.empty_lines++;
      return undefined;
    }
    if (state === CLOSED) this.#endField(this.#cell.segEnd);
    else {
      if (state === FIELD_START) this.#cell.mark(pos);
      this.#endField(pos);
    }
    if (this.error !== undefined) return this.error;
    record.emit(this.#push);
    this.#cell.unload();
    return undefined;
  }

  #isDelimiter(pos: number): boolean {
    return this.#cell.holdsAt(pos, this.#delimiter);
  }
}
