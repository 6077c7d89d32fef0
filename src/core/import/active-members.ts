/**
 * The members with a row on its way (member-order.ts), each with its rows waiting behind that row: a hash table of
 * memberId strings made for a set that gains and loses one member per row, ~6,500 at a time in an import at 0 ms.
 *
 * Open addressing with linear probing over three parallel arrays (the memberId, 32 bits of its hash, what waits),
 * and backward-shift deletion, so a removal leaves no tombstone and the table never needs rebuilding to stay fast:
 * adding and removing a member allocates nothing. It grows (doubling) at half full and never shrinks; its size is
 * bounded by the pipeline's window and held rows (flow-gate.ts), a few hundred KB at most. A probe compares the
 * stored hash first and the memberId string only when that matches, so a member is found exactly by its string.
 */
import { idHash } from '../duplicates/member-hash.js';

const FIRST_SLOTS = 1024;

export class ActiveMembers<W> {
  #ids: (string | undefined)[] = [];
  #hashes = new Int32Array(0);
  #waiting: (W[] | null)[] = [];
  #mask = 0;
  #size = 0;

  constructor() {
    this.#allocate(FIRST_SLOTS);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds `memberId` with nothing waiting and returns −1, or returns the slot where it already is. */
  addOrFind(memberId: string): number {
    const hash = idHash(memberId);
    const mask = this.#mask;
    const ids = this.#ids;
    const hashes = this.#hashes;
    let slot = hash & mask;
    for (;;) {
      const id = ids[slot];
      if (id === undefined) break;
      if (hashes[slot] === hash && id === memberId) return slot;
      slot = (slot + 1) & mask;
    }
    ids[slot] = memberId;
    hashes[slot] = hash;
    this.#waiting[slot] = null;
    if (++this.#size * 2 > mask + 1) this.#allocate((mask + 1) * 2);
    return -1;
  }

  /** The slot holding `memberId`, or −1. A slot stays valid until the next add or removal. */
  find(memberId: string): number {
    const hash = idHash(memberId);
    const mask = this.#mask;
    const ids = this.#ids;
    let slot = hash & mask;
    for (;;) {
      const id = ids[slot];
      if (id === undefined) return -1;
      if (this.#hashes[slot] === hash && id === memberId) return slot;
      slot = (slot + 1) & mask;
    }
  }

  waitingAt(slot: number): W[] | null {
    return this.#waiting[slot]!;
  }

  setWaiting(slot: number, waiting: W[] | null): void {
    this.#waiting[slot] = waiting;
  }

  /** Removes the member at `slot`: each later entry of its probe run that may move back fills the gap. */
  removeAt(slot: number): void {
    const ids = this.#ids;
    const hashes = this.#hashes;
    const waiting = this.#waiting;
    const mask = this.#mask;
    let gap = slot;
    for (let at = (gap + 1) & mask; ids[at] !== undefined; at = (at + 1) & mask) {
      const home = hashes[at]! & mask;
      // the entry at `at` may move to `gap` unless its home lies cyclically in (gap, at]
      const stays = gap <= at ? gap < home && home <= at : gap < home || home <= at;
      if (stays) continue;
      ids[gap] = ids[at];
      hashes[gap] = hashes[at]!;
      waiting[gap] = waiting[at]!;
      gap = at;
    }
    ids[gap] = undefined;
    waiting[gap] = null;
    this.#size--;
  }

  /** Every member's waiting rows (members in slot order), each member left with nothing waiting. */
  takeAllWaiting(): W[][] {
    const taken: W[][] = [];
    for (let slot = 0; slot <= this.#mask; slot++) {
      const rows = this.#waiting[slot];
      if (this.#ids[slot] === undefined || !rows) continue;
      taken.push(rows);
      this.#waiting[slot] = null;
    }
    return taken;
  }

  #allocate(slots: number): void {
    const ids = this.#ids;
    const hashes = this.#hashes;
    const waiting = this.#waiting;
    // filled by push, not created with holes: a holey array stays slower to read even once every hole is filled
    this.#ids = [];
    this.#waiting = [];
    for (let slot = 0; slot < slots; slot++) {
      this.#ids.push(undefined);
      this.#waiting.push(null);
    }
    this.#hashes = new Int32Array(slots);
    this.#mask = slots - 1;
    for (let from = 0; from < ids.length; from++) {
      const id = ids[from];
      if (id === undefined) continue;
      let slot = hashes[from]! & this.#mask;
      while (this.#ids[slot] !== undefined) slot = (slot + 1) & this.#mask;
      this.#ids[slot] = id;
      this.#hashes[slot] = hashes[from]!;
      this.#waiting[slot] = waiting[from]!;
    }
  }
}
