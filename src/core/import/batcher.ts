/**
 * Gathers records into request bodies. Each item is serialized once (JSON.stringify at read time, kept as UTF-8
 * bytes: item-bytes.ts) and a body is the items' bytes joined, so the bytes limit is exact and nothing is
 * serialized or encoded twice.
 */
import { COMMA, type ItemBytes } from './item-bytes.js';

/** A valid record on its way to the server: its item's JSON as bytes. `raw` is kept only until it settles (for the rejects file). */
export interface PendingRecord extends ItemBytes {
  record: number;
  line: number;
  memberId: string;
  raw: unknown;
}

export interface Batch {
  /** Number of the input batch this came from (bisect halves and 413 splits keep it). */
  id: number;
  records: PendingRecord[];
  bytes: number;
  attempt: 'first' | 'bisect' | 'split';
}

/** Bytes of a body holding records whose texts total `itemBytes`: brackets and commas. */
export function bodyBytes(count: number, itemBytes: number): number {
  return count === 0 ? 2 : itemBytes + count + 1;
}

/**
 * The request body as the UTF-8 bytes that go on the wire: each item's bytes copied into one buffer of the exact
 * size, never a joined string for the HTTP client to encode again (that cost ~13× as much: docs/performance.md).
 */
export function batchBody(records: readonly PendingRecord[]): Buffer {
  let itemBytes = 0;
  for (const r of records) itemBytes += r.bytes;
  const body = Buffer.allocUnsafe(bodyBytes(records.length, itemBytes));
  let at = 0;
  body[at++] = 0x5b; // [
  for (let i = 0; i < records.length; ) {
    if (i > 0) body[at++] = COMMA;
    const first = records[i]!;
    const slab = first.slab;
    let end = first.at + first.bytes;
    // the records put right after it in its slab, a comma between each (item-bytes.ts): one copy for the run
    for (i++; i < records.length; i++) {
      const next = records[i]!;
      if (next.slab !== slab || next.at !== end + 1 || slab[end] !== COMMA) break;
      end = next.at + next.bytes;
    }
    at += slab.copy(body, at, first.at, end);
  }
  body[at++] = 0x5d; // ]
  // a record pointing past its slab would send uninitialised memory or cut an item short: never let that reach the server
  if (at !== body.length) throw new Error(`batch body is ${at} bytes, ${body.length} expected`);
  return body;
}

export function makeBatch(id: number, records: PendingRecord[], attempt: Batch['attempt']): Batch {
  let itemBytes = 0;
  for (const r of records) itemBytes += r.bytes;
  return { id, records, bytes: bodyBytes(records.length, itemBytes), attempt };
}

const NONE: readonly Batch[] = [];

export class Batcher {
  private records: PendingRecord[] = [];
  private itemBytes = 0;
  private nextId = 1;
  #maxItems: number;

  constructor(
    maxItems: number,
    public readonly maxBytes: number,
  ) {
    this.#maxItems = maxItems;
  }

  /** Records per batch: as asked, or lower after a 413 (see tooLarge). */
  get maxItems(): number {
    return this.#maxItems;
  }

  /**
   * The batch-size policy: the server refused a batch of `refused` records as too large (413), so batches are
   * ⌈refused / 2⌉ records at most for the rest of the run. Returns the new size when it went down (another
   * request may have lowered it further already).
   */
  tooLarge(refused: number): number | undefined {
    const lowered = Math.ceil(refused / 2);
    if (lowered >= this.#maxItems) return undefined;
    this.#maxItems = lowered;
    return lowered;
  }

  /**
   * A refused batch cut in two, first half first (file order among them is kept). A 413 split cuts to the lowered
   * batch size at once when that is smaller than a half.
   */
  halves(batch: Batch, attempt: 'bisect' | 'split'): Batch[] {
    const half = Math.ceil(batch.records.length / 2);
    return this.#cut(batch, attempt === 'split' ? Math.min(half, this.#maxItems) : half, attempt);
  }

  /** After a 413, batches not sent yet (and the open one) are cut to the new size rather than refused again. */
  resplit(waiting: Batch[]): Batch[] {
    const open = this.size > this.#maxItems ? this.close() : undefined;
    return [...waiting, ...(open ? [open] : [])].flatMap((batch) =>
      batch.records.length <= this.#maxItems ? [batch] : this.#cut(batch, this.#maxItems, 'split'),
    );
  }

  #cut(batch: Batch, size: number, attempt: Batch['attempt']): Batch[] {
    const parts: Batch[] = [];
    for (let i = 0; i < batch.records.length; i += size)
      parts.push(makeBatch(batch.id, batch.records.slice(i, i + size), attempt));
    return parts;
  }

  get size(): number {
    return this.records.length;
  }

  /** Number of batches closed so far. */
  get closed(): number {
    return this.nextId - 1;
  }

  /**
   * Adds a record; returns the batch(es) this closed. A record that would push the body over the bytes limit
   * closes the current batch first; a record larger than the limit on its own still goes, alone.
   */
  add(record: PendingRecord): readonly Batch[] {
    // (no array per record: most records close nothing, and they share one empty answer)
    let out: Batch[] | undefined;
    if (this.records.length > 0 && bodyBytes(this.records.length + 1, this.itemBytes + record.bytes) > this.maxBytes) {
      out = [this.close()!];
    }
    this.records.push(record);
    this.itemBytes += record.bytes;
    if (this.records.length >= this.#maxItems || bodyBytes(this.records.length, this.itemBytes) >= this.maxBytes) {
      (out ??= []).push(this.close()!);
    }
    return out ?? NONE;
  }

  /** Closes the open batch, if any. */
  close(): Batch | undefined {
    if (this.records.length === 0) return undefined;
    const batch: Batch = {
      id: this.nextId++,
      records: this.records,
      bytes: bodyBytes(this.records.length, this.itemBytes),
      attempt: 'first',
    };
    this.records = [];
    this.itemBytes = 0;
    return batch;
  }

  /** Takes the open batch's records without sending them (the run is stopping). */
  drain(): PendingRecord[] {
    const records = this.records;
    this.records = [];
    this.itemBytes = 0;
    return records;
  }
}
