/**
 * The record the CSV scanner is reading (csv-scan-states.ts) and csv-parse's counters: the record's cells so far,
 * which of them are quoted null tokens, its bytes, and whether max_record_size lets its next cell in.
 */
import { type CsvError, recordTooLarge } from './csv-error.js';

const LF = 0x0a;
const CR = 0x0d;

export type CsvPush = (cells: string[], quotedNullTokens: number[] | undefined) => void;

export class ScanRecord {
  /**
   * csv-parse's counters as it emits each record: `lines` counts every \r and \n once, but an unquoted \r\n once
   * (a quoted \r\n counts twice); `empty_lines` the lines with no byte, skipped.
   */
  readonly info = { lines: 1, empty_lines: 0 };
  cells: string[] = [];
  /** The indices of its quoted cells that equal the null token. */
  #nullTokens: number[] | undefined;
  /** Its bytes in earlier chunks. */
  bytesBefore = 0;
  /** Where it starts in the chunk being scanned. */
  start = 0;

  /** `maxSize`: max_record_size, 0: no limit; `nullToken`: report the quoted cells that equal it, trimmed. */
  constructor(
    readonly maxSize: number,
    private readonly nullToken: string | undefined,
  ) {}

  add(cell: string, quoted: boolean): void {
    if (quoted && this.nullToken !== undefined && cell.trim() === this.nullToken)
      (this.#nullTokens ??= []).push(this.cells.length);
    this.cells.push(cell);
  }

  /** Hands the record on; the next starts empty. */
  emit(push: CsvPush): void {
    push(this.cells, this.#nullTokens);
    this.cells = [];
    this.#nullTokens = undefined;
  }

  /** A line break outside quotes at `pos` of `chunk` (\r\n is one): returns where the next record starts. */
  lineBreak(chunk: Buffer, pos: number): number {
    this.info.lines++;
    this.start = chunk[pos] === CR && chunk[pos + 1] === LF ? pos + 2 : pos + 1;
    this.bytesBefore = 0;
    return this.start;
  }

  /** Whether a cell ending at `end` may take the record past max_record_size (`refuse` says). */
  mayExceed(end: number): boolean {
    return this.maxSize > 0 && this.bytesBefore + (end - this.start) > this.maxSize;
  }

  /**
   * A chunk ends at `pos`, inside this record or (no cell open, none read) before it. Returns whether the open cell
   * must be held to max_record_size now: the record's bytes so far exceed it.
   */
  carryOver(pos: number, cellOpen: boolean): boolean {
    if (!cellOpen && this.cells.length === 0) {
      this.bytesBefore = 0;
      return false;
    }
    this.bytesBefore += pos - this.start;
    return this.maxSize > 0 && cellOpen && this.bytesBefore > this.maxSize;
  }

  /**
   * csv-parse refuses a byte of a cell when the record's earlier cells (their length in UTF-16 units) and the
   * cell's bytes before it exceed max_record_size: a cell of `cellBytes` bytes fails when earlier + bytes - 1 > max.
   */
  refuse(cellBytes: number): CsvError | undefined {
    let earlier = 0;
    for (const cell of this.cells) earlier += cell.length;
    if (cellBytes === 0 || earlier + cellBytes - 1 <= this.maxSize) return undefined;
    return recordTooLarge(this.maxSize, this.info.lines);
  }
}
