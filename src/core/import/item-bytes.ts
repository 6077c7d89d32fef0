/**
 * Where a record's JSON waits until it settles: as UTF-8 bytes in a shared slab, not as a string. The ~6,500
 * records the pipeline holds (open batch, queue, requests in flight, answers being accounted) each outlive
 * a few young-generation GCs, and every GC copied their strings (~250 bytes each) again, then promoted them to
 * be swept later: the largest part of import's GC cost, which validate does not have. Bytes in a slab outside
 * the JavaScript heap are never copied by the GC, and a body is then built with memcpy instead of UTF-8 encoding.
 *
 * Each item is followed by a comma in its slab, so the records of a batch that were put one after another (most of
 * them: a batch fills in file order) are one run of bytes, a body's items and their commas, copied with one call.
 *
 * A slab is freed once none of its records is left. Only rows that go straight into a batch are put in the shared
 * slab, in file order, so the slabs alive span the records in the pipeline; a row held back behind its member's
 * earlier row (it may wait for minutes, its neighbours long settled) gets a buffer of its own instead.
 */

/** The bytes of one item: `bytes` of `slab` from `at`. */
export interface ItemBytes {
  slab: Buffer;
  at: number;
  bytes: number;
}

const SLAB_BYTES = 64 * 1024;
export const COMMA = 0x2c;

export class ItemSlabs {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;

  /**
   * Encodes `json` into the current slab (a new one when it may not fit), followed by a comma, and points `into` at
   * its bytes (the comma not counted): records put one after another lie in their slab as a body holds them, and
   * `batchBody` copies such a run at once.
   */
  put(json: string, into: ItemBytes): void {
    // at most 3 bytes per UTF-16 unit: reserving that much means write() never cuts the text short
    const most = json.length * 3 + 1;
    if (this.used + most > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, most));
      this.used = 0;
    }
    into.slab = this.slab;
    into.at = this.used;
    into.bytes = this.slab.write(json, this.used);
    this.used += into.bytes;
    this.slab[this.used++] = COMMA;
  }
}

/** A buffer of its own, exactly the item's size (for rows that may wait long). */
export function ownBytes(json: string, into: ItemBytes): void {
  into.bytes = Buffer.byteLength(json);
  into.slab = Buffer.allocUnsafeSlow(into.bytes);
  into.at = 0;
  into.slab.write(json, 0);
}

/** The item's JSON text again (for hooks that hash or store it). */
export function itemJson(item: ItemBytes): string {
  return item.slab.toString('utf8', item.at, item.at + item.bytes);
}
