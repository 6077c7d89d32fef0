/**
 * The cell the CSV scanner is reading (csv-scan-states.ts), and where its text comes from: cut from the chunk being
 * scanned when the cell lies whole in it, or decoded from the bytes gathered for it when it does not (a cell across
 * chunks, with an escaped quote, or reopened after a closing quote).
 *
 * An ASCII cell of fewer than 13 bytes is cut from the chunk's bytes read once as latin1 (V8 copies a substring that
 * short); a longer one is read from its bytes on its own, so that no cell keeps the chunk's string alive (a row held
 * behind its member's earlier row would keep a 64 KB chunk; docs/performance.md, "Unpacking the worker's cells"),
 * and a cell with any byte above 0x7F is decoded as UTF-8 on its own (Buffer's decoder, csv-parse's).
 */

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

/** SlicedString::kMinLength in V8: a shorter substring is a copy of its own. */
const COPIED_BELOW = 13;
/** The chunk between two calls: none is held. */
const NO_CHUNK = Buffer.alloc(0);
/** A gathering buffer this large is let go with its cell, not kept for the next. */
const KEPT_ROOM = 1 << 20;

export class ScanCell {
  /** The chunk being scanned. */
  chunk: Buffer = NO_CHUNK;
  /** The chunk's bytes as latin1, decoded once, when a short cell first needs it. */
  #chunkText: string | undefined;
  /** Where the cell's current segment starts in the chunk. */
  seg = 0;
  /** Where a quoted cell closed (its segment is `seg..segEnd`). */
  segEnd = 0;
  /** The segment has a byte above 0x7F: it is decoded as UTF-8, not cut from the latin1 text. */
  wide = false;
  /** The cell was quoted (csv-parse reports a null token only in a quoted cell). */
  wasQuoting = false;
  /** The cell was reopened after a closing quote: its text reads `"` + what was gathered. */
  prepended = false;
  /** The cell has bytes in `parts` (from earlier chunks, before an escaped quote, before a NUL). */
  hasParts = false;
  /** Those bytes, `partsBytes` of them, in one buffer that grows by doubling (a cell of 10 MB of `""` is 5 MB here). */
  #parts: Buffer | undefined;
  partsBytes = 0;

  /** Scans `chunk` next. */
  load(chunk: Buffer): void {
    this.chunk = chunk;
    this.#chunkText = undefined;
  }

  /** Lets the chunk go (a call's end): a carried cell lives on in its parts. */
  unload(): void {
    this.chunk = NO_CHUNK;
    this.#chunkText = undefined;
  }

  /** A chunk's end: the open cell keeps its text so far (`seg..end`; none open: undefined) and lets the chunk go. */
  carryOver(end: number | undefined): void {
    if (end !== undefined) this.keep(end);
    this.seg = this.segEnd = 0;
    this.unload();
  }

  /** The cell's (next) segment starts at `pos`. */
  mark(pos: number): void {
    this.seg = pos;
    this.wide = false;
  }

  /** Copies the cell's text so far (`seg..end`) after its earlier bytes: the chunk goes, or a gap follows. */
  keep(end: number): void {
    const length = end - this.seg;
    const need = this.partsBytes + length;
    if (this.#parts === undefined || this.#parts.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(256, need, 2 * (this.#parts?.length ?? 0)));
      this.#parts?.copy(grown, 0, 0, this.partsBytes);
      this.#parts = grown;
    }
    this.chunk.copy(this.#parts, this.partsBytes, this.seg, end);
    this.partsBytes = need;
    this.hasParts = true;
  }

  /** The cell's bytes so far, its segment ending at `end` (a reopened cell's leading quote is one). */
  bytes(end: number): number {
    return this.partsBytes + (end - this.seg) + (this.prepended ? 1 : 0);
  }

  /** The cell's text, its segment ending at `end`; the next cell starts afresh. */
  text(end: number): string {
    const text = !this.hasParts && !this.prepended ? this.cut(this.seg, end, this.wide) : this.#joined(end);
    this.wasQuoting = false;
    this.prepended = false;
    this.hasParts = false;
    return text;
  }

  /** Whether the chunk holds `bytes` at `pos` (a delimiter of more than one byte). */
  holdsAt(pos: number, bytes: Buffer): boolean {
    for (let j = 0; j < bytes.length; j++) if (this.chunk[pos + j] !== bytes[j]) return false;
    return true;
  }

  /** The cell `start..end` of the chunk: cut from its latin1 text (short and ASCII), or read on its own. */
  cut(start: number, end: number, wide: boolean): string {
    if (wide) return utf8.call(this.chunk, start, end);
    if (end - start >= COPIED_BELOW) return latin1.call(this.chunk, start, end);
    if (end === start) return '';
    this.#chunkText ??= latin1.call(this.chunk, 0, this.chunk.length);
    return this.#chunkText.slice(start, end);
  }

  /** The cell's text from its parts (a cell across chunks, with an escaped quote, or reopened): decoded whole. */
  #joined(end: number): string {
    this.keep(end);
    const text = utf8.call(this.#parts!, 0, this.partsBytes);
    this.partsBytes = 0;
    if (this.#parts!.length > KEPT_ROOM) this.#parts = undefined;
    return this.prepended ? `"${text}` : text;
  }
}
