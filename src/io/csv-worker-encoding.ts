/**
 * The worker's side of the rows it encodes (csv-worker-messages.ts packs them): each row the caller's encoder takes
 * is written as JSON into the chunk's slab, one after another, with its memberId and the duplicate check's hashes
 * beside it; every other row stays cells.
 */
import type { EncodedRow, RowEncoder, SourceRecord } from './source.js';

/** Per encoded row: at, bytes, idLow, idHigh, content. */
export const ENCODED_FIELDS = 5;

/** A replacement character may stand for bytes that are not UTF-8, which the main thread's checker claims by row. */
const REPLACEMENT = '\ufffd';

/** What encodeRows gives: per record, whether the encoder took it; the memberIds of those it took; their fields. */
export interface Taken {
  /** Per record: 0 as cells, TAKEN, or TAKEN | TAKEN_HASHED. */
  rows: Uint8Array;
  memberIds: string[];
  count: number;
  fields: Int32Array;
  slab: Buffer;
}

/**
 * The rows the encoder takes, each row's JSON written into the slab as soon as it is made (so that no row's item
 * or text outlives it: the worker's young generation is small). A row read with a problem (an error, padded, a
 * quoted null token) or holding a replacement character goes as its cells: the main thread has what it needs.
 */
export function encodeRows(records: readonly SourceRecord[], encoder: RowEncoder): Taken {
  const rows = new Uint8Array(records.length);
  const memberIds: string[] = [];
  const fields = new Int32Array(records.length * ENCODED_FIELDS);
  let slab = Buffer.allocUnsafeSlow(SLAB_START);
  let used = 0;
  let e = 0;
  const row: EncodedRow = { json: '', memberId: '', hashed: false, idLow: 0, idHigh: 0, content: 0 };
  for (let r = 0; r < records.length; r++) {
    const record = records[r]!;
    if (record.error || record.padded || record.quotedNullTokens || hasReplacement(record.raw as string[])) continue;
    if (!encoder(record, row)) continue;
    const { json } = row;
    // write() stops short of a character that does not fit: make room first when it might not
    if (slab.length - used < json.length * 3 + 1) {
      const needed = used + Buffer.byteLength(json) + 1;
      if (needed > slab.length) {
        const larger = Buffer.allocUnsafeSlow(Math.max(needed, slab.length * 2));
        slab.copy(larger, 0, 0, used);
        slab = larger;
      }
    }
    const bytes = slab.write(json, used);
    const at = e * ENCODED_FIELDS;
    fields[at] = used;
    fields[at + 1] = bytes;
    fields[at + 2] = row.hashed ? row.idLow : 0;
    fields[at + 3] = row.hashed ? row.idHigh : 0;
    fields[at + 4] = row.hashed ? row.content : 0;
    rows[r] = row.hashed ? TAKEN | TAKEN_HASHED : TAKEN;
    memberIds.push(row.memberId);
    used += bytes;
    slab[used++] = COMMA;
    e++;
  }
  return { rows, memberIds, count: e, fields, slab };
}

const TAKEN = 1;
export const TAKEN_HASHED = 2;

/**
 * Each item's JSON is followed by a comma in the slab, as in the main thread's own slabs (core/import/item-bytes.ts):
 * a batch body copies the items put one after another, commas and all, at once.
 */
const COMMA = 0x2c;

/** A chunk's JSON slab to begin with: ~64 KB of CSV input gives about this much JSON. */
const SLAB_START = 128 * 1024;

function hasReplacement(cells: readonly string[]): boolean {
  for (let c = 0; c < cells.length; c++) if (cells[c]!.includes(REPLACEMENT)) return true;
  return false;
}
