/**
 * What travels between the main thread and the CSV parsing worker (csv-worker.ts, csv-worker-client.ts): the
 * messages, and the records packed in them. A chunk's CSV records are packed in a form a worker can hand over
 * without copying them cell by cell: every cell's text in one buffer (latin1 or UTF-16), where each cell ends, and
 * five numbers per record. Structured cloning 500 records of a dozen strings would cost the main thread about what
 * parsing them did; this costs it one string per cell.
 */
import { ENCODED_FIELDS, encodeRows, TAKEN_HASHED } from './csv-worker-encoding.js';
import type { EncodedRecord, RowEncoder, RowEncoderSpec, SourceRecord } from './source.js';

export interface PackedRecords {
  /**
   * Per record: its number, its first line, its last line, how many cells, flags (UNTERMINATED, HAS_ERROR, PADDED).
   * Doubles, not 32-bit integers: a file of billions of blank lines numbers its records' lines past 2^31.
   */
  meta: Float64Array;
  /** The cells' text, one after another, as latin1 bytes when every character fits one, else UTF-16 (its buffer is transferred). */
  text: Uint8Array;
  wide: boolean;
  /** Where each cell ends in the text, in characters, cell after cell. */
  ends: Uint32Array;
  /** The `error` of each record flagged HAS_ERROR, in order. */
  errors: Array<{ message: string; hint?: string }>;
  /** The `quotedNullTokens` of each record flagged QUOTED_NULL_TOKENS, in order (none without a --null-token). */
  quotedNullTokens: number[][];
  /**
   * The rows flagged ENCODED (their one cell is the memberId): per row, where its JSON starts in `slab` and how
   * many bytes, the memberId's two hash words and the content hash (ENCODED_FIELDS); `slab` holds the JSON of all
   * of them, one after another, each followed by a comma, and becomes the main thread's slab as it is
   * (transferred, not copied).
   */
  encoded?: { rows: Int32Array; slab: Uint8Array };
}

/** To the worker: each chunk of bytes as read, then the end of the input. */
export type ToWorker =
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end' }
  /** The encoder for the chunks that ask for it from now on (no reply of its own). */
  | { type: 'encode'; encoder: RowEncoderSpec };

export type FromWorker =
  /**
   * One per message received, in order: the records that chunk completed; the header's cells once, as read (the
   * main thread checks them), with the reply that has them.
   */
  | {
      type: 'parsed';
      headers?: string[];
      headerLines: { start: number; end: number };
      packed: PackedRecords;
      ended: boolean;
    }
  /**
   * The input is broken (a quote never closed, a record too large): thrown again as this InputError, after checking
   * the header's cells when the same message completed them (the main thread checks a header as soon as it is read).
   * `lastLine`: where the records that message parsed before the error end (dropped, as on the main thread, whose
   * UTF-8 checker they still claimed).
   */
  | {
      type: 'input-error';
      message: string;
      code: string;
      file?: string;
      line?: number;
      hint?: string;
      headers?: string[];
      headerLines: { start: number; end: number };
      lastLine?: number;
    }
  /** A bug in the worker. */
  | { type: 'failed'; message: string };

const FIELDS = 5;
const UNTERMINATED = 1;
const HAS_ERROR = 2;
const PADDED = 4;
const QUOTED_NULL_TOKENS = 8;
const ENCODED = 16;
const HASHED = 32;
/** A character a latin1 byte cannot hold. */
const WIDE = /[^\u0000-\u00ff]/;

/**
 * The cells are joined into one string and encoded once, as latin1 (a copy, for the one-byte strings most exports
 * give) or UTF-16 (a copy too): no UTF-8 encoding cell by cell, and cell boundaries in characters. With an
 * `encoder`, a row it takes travels as its memberId (its one cell), its hashes and its JSON instead.
 */
export function packRecords(
  records: readonly SourceRecord[],
  ends: readonly number[],
  encoder?: RowEncoder,
): PackedRecords {
  const meta = new Float64Array(records.length * FIELDS);
  const taken = encoder ? encodeRows(records, encoder) : undefined;
  let cellCount = 0;
  for (let r = 0; r < records.length; r++) cellCount += taken?.rows[r] ? 1 : (records[r]!.raw as string[]).length;
  const cellEnds = new Uint32Array(cellCount);
  const parts: string[] = new Array(cellCount);
  let at = 0;
  let cell = 0;
  let e = 0;
  const errors: PackedRecords['errors'] = [];
  const quotedNullTokens: number[][] = [];
  records.forEach((record, r) => {
    const took = taken ? taken.rows[r]! : 0;
    const cells = took ? [taken!.memberIds[e++]!] : (record.raw as string[]);
    meta[r * FIELDS] = record.record;
    meta[r * FIELDS + 1] = record.line;
    meta[r * FIELDS + 2] = ends[r]!;
    meta[r * FIELDS + 3] = cells.length;
    meta[r * FIELDS + 4] =
      (record.unterminated ? UNTERMINATED : 0) |
      (record.error ? HAS_ERROR : 0) |
      (record.padded ? PADDED : 0) |
      (record.quotedNullTokens ? QUOTED_NULL_TOKENS : 0) |
      (took ? ENCODED | (took & TAKEN_HASHED ? HASHED : 0) : 0);
    if (record.error) errors.push(record.error);
    if (record.quotedNullTokens) quotedNullTokens.push(record.quotedNullTokens);
    for (const value of cells) {
      at += value.length;
      cellEnds[cell] = at;
      parts[cell++] = value;
    }
  });
  const joined = parts.join('');
  const wide = WIDE.test(joined);
  const text = Buffer.from(joined, wide ? 'utf16le' : 'latin1');
  const packed: PackedRecords = { meta, text, wide, ends: cellEnds, errors, quotedNullTokens };
  if (taken && taken.count > 0) packed.encoded = { rows: taken.fields, slab: taken.slab };
  return packed;
}

/** What a worker's postMessage moves instead of copying. */
export function transferables(packed: PackedRecords): ArrayBuffer[] {
  const moved = [
    packed.meta.buffer as ArrayBuffer,
    packed.text.buffer as ArrayBuffer,
    packed.ends.buffer as ArrayBuffer,
  ];
  if (packed.encoded) moved.push(packed.encoded.rows.buffer as ArrayBuffer, packed.encoded.slab.buffer as ArrayBuffer);
  return moved;
}

type Slice = (this: Buffer, start: number, end: number) => string;
/**
 * Buffer's own decoders, which toString(encoding, start, end) calls after checking its arguments: a third of the
 * unpacking's cost at a dozen cells per row. Present in every Node release, but not in the typings.
 */
const decoders = Buffer.prototype as unknown as { latin1Slice?: Slice; ucs2Slice?: Slice };
const latin1: Slice =
  decoders.latin1Slice ??
  function (this: Buffer, start, end) {
    return this.toString('latin1', start, end);
  };
const utf16: Slice =
  decoders.ucs2Slice ??
  function (this: Buffer, start, end) {
    return this.toString('utf16le', start, end);
  };

/**
 * V8 makes a substring of fewer characters than this a copy of its own; a longer one may point into the string it
 * was cut from (a "sliced string", SlicedString::kMinLength in V8's source), which would keep that string alive.
 */
const COPIED_BELOW = 13;

/**
 * The records, and the physical line each ends on. The chunk's text is decoded once into one string and the short
 * cells cut from it (a native call per cell cost more than the copy: 200k rows 170 → 74 ms); a longer cell is
 * decoded from the bytes on its own, so that no cell keeps the chunk's string alive (a held row's memberId may
 * live for minutes, and up to 10,000 rows are held).
 */
export function unpackRecords(packed: PackedRecords): { records: SourceRecord[]; ends: number[] } {
  const { meta, ends, wide, errors, quotedNullTokens } = packed;
  const text = Buffer.from(packed.text.buffer, packed.text.byteOffset, packed.text.byteLength);
  const decode = wide ? utf16 : latin1;
  const unit = wide ? 2 : 1;
  const whole = decode.call(text, 0, text.length);
  const records: SourceRecord[] = new Array(meta.length / FIELDS);
  const lastLines: number[] = new Array(records.length);
  const encoded = packed.encoded;
  const slab = encoded && Buffer.from(encoded.slab.buffer, encoded.slab.byteOffset, encoded.slab.byteLength);
  let cell = 0;
  let start = 0;
  let error = 0;
  let quoted = 0;
  let e = 0;
  for (let r = 0; r < records.length; r++) {
    lastLines[r] = meta[r * FIELDS + 2]!;
    const count = meta[r * FIELDS + 3]!;
    const flags = meta[r * FIELDS + 4]!;
    const cells: string[] = new Array(count);
    for (let c = 0; c < count; c++) {
      const end = ends[cell++]!;
      cells[c] = end - start < COPIED_BELOW ? whole.slice(start, end) : decode.call(text, start * unit, end * unit);
      start = end;
    }
    if (flags & ENCODED) {
      const fields = encoded!.rows;
      const at = e * ENCODED_FIELDS;
      const record: EncodedRecord = {
        record: meta[r * FIELDS]!,
        line: meta[r * FIELDS + 1]!,
        raw: undefined,
        encoded: true,
        memberId: cells[0]!,
        slab: slab!,
        at: fields[at]!,
        bytes: fields[at + 1]!,
        hashed: (flags & HASHED) !== 0,
        idLow: fields[at + 2]!,
        idHigh: fields[at + 3]!,
        content: fields[at + 4]!,
      };
      if (flags & UNTERMINATED) record.unterminated = true;
      records[r] = record;
      e++;
      continue;
    }
    const record: SourceRecord = { record: meta[r * FIELDS]!, line: meta[r * FIELDS + 1]!, raw: cells };
    if (flags & UNTERMINATED) record.unterminated = true;
    if (flags & HAS_ERROR) record.error = errors[error++];
    if (flags & PADDED) record.padded = true;
    if (flags & QUOTED_NULL_TOKENS) record.quotedNullTokens = quotedNullTokens[quoted++]!;
    records[r] = record;
  }
  return { records, ends: lastLines };
}
