/**
 * Every memberId a run has seen, in about 25 bytes each instead of a Map of strings (~100 bytes and a GC object
 * per member): a 64-bit hash of the memberId, a 32-bit hash of its first row's content, the first row's line, and
 * whether a later row differed.
 *
 * Separate chaining over typed arrays. The entries are appended to pages of 65,536 that are never copied or freed;
 * only the bucket heads (4 bytes per bucket, one bucket per entry at most) are rebuilt when they double. An open
 * table that copies itself to grow left ~5× its final size behind as old arrays awaiting a full GC (+38 MB of peak
 * RSS on a million rows against +23 MB of table); this one leaves only its old heads (docs/performance.md).
 *
 * An entry is 5 words: [0] the high hash word, [1] the low one, [2] the content hash, [3] the first line (int32:
 * a line past 2^31 reads back through >>> 0), [4] the next entry of the bucket + 1 (0: none) | DIFFERED.
 */

/** What `observe` found: the memberId's first row, a repeat with the same content, or one with other content. */
export const Seen = { first: 0, same: 1, differs: 2, differsAgain: 3 } as const;
export type Seen = (typeof Seen)[keyof typeof Seen];

const WORDS = 5;
const PAGE_BITS = 16;
const PAGE_ENTRIES = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_ENTRIES - 1;
const FIRST_BUCKETS = 1024;
const DIFFERED = 0x80000000 | 0;
const NEXT = 0x7fffffff;

export class MemberTable {
  readonly #pages: Int32Array[] = [];
  #heads = new Int32Array(FIRST_BUCKETS);
  #size = 0;
  /** The first line of the memberId `observe` looked up last (for "also on line N"). */
  firstLine = 0;

  /** memberIds seen. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held (for the docs' memory figures and the tests). */
  get bytes(): number {
    return this.#heads.byteLength + this.#pages.reduce((total, page) => total + page.byteLength, 0);
  }

  /**
   * A row of a memberId (hash `high`:`low`) with content hash `content` on `line` (≥ 1). The first row of a memberId
   * is kept; a later one is compared with it (not with the row before it: under --duplicates refuse the first row
   * is the one that stands). `differs` is answered once per memberId, `differsAgain` after that.
   */
  observe(high: number, low: number, content: number, line: number): Seen {
    if (!(line >= 1 && line <= 0xffffffff)) throw new RangeError(`line ${line} out of range`);
    // int32 throughout: V8 keeps these unboxed (a uint32 past 2^31 would be a heap number)
    const highWord = high | 0;
    const lowWord = low | 0;
    const contentWord = content | 0;
    const bucket = lowWord & (this.#heads.length - 1);
    for (let next = this.#heads[bucket]!; next !== 0; ) {
      const page = this.#pages[(next - 1) >>> PAGE_BITS]!;
      const at = ((next - 1) & PAGE_MASK) * WORDS;
      const link = page[at + 4]!;
      if (page[at] === highWord && page[at + 1] === lowWord) {
        this.firstLine = page[at + 3]! >>> 0;
        if (page[at + 2] === contentWord) return Seen.same;
        if (link & DIFFERED) return Seen.differsAgain;
        page[at + 4] = link | DIFFERED;
        return Seen.differs;
      }
      next = link & NEXT;
    }
    this.#append(highWord, lowWord, contentWord, line | 0, bucket);
    this.firstLine = line;
    return Seen.first;
  }

  #append(high: number, low: number, content: number, line: number, bucket: number): void {
    const index = this.#size;
    if ((index & PAGE_MASK) === 0) this.#pages.push(new Int32Array(PAGE_ENTRIES * WORDS));
    const page = this.#pages[index >>> PAGE_BITS]!;
    const at = (index & PAGE_MASK) * WORDS;
    page[at] = high;
    page[at + 1] = low;
    page[at + 2] = content;
    page[at + 3] = line;
    page[at + 4] = this.#heads[bucket]!;
    this.#heads[bucket] = index + 1;
    this.#size = index + 1;
    if (this.#size > this.#heads.length) this.#rehash(this.#heads.length * 2);
  }

  /** More buckets: every entry relinked in place (the DIFFERED bits stay with their entries). */
  #rehash(buckets: number): void {
    const heads = new Int32Array(buckets);
    const mask = buckets - 1;
    for (let index = 0; index < this.#size; index++) {
      const page = this.#pages[index >>> PAGE_BITS]!;
      const at = (index & PAGE_MASK) * WORDS;
      const bucket = page[at + 1]! & mask;
      page[at + 4] = (page[at + 4]! & DIFFERED) | heads[bucket]!;
      heads[bucket] = index + 1;
    }
    this.#heads = heads;
  }
}
