/**
 * Every memberId a run has seen, in a 16-byte slot each, 18–23 bytes with the table's free room (a Map of strings:
 * ~100 bytes and a GC object per member): a 64-bit hash of the memberId, a 32-bit hash of its first row's content,
 * the first row's line, and whether a later row differed.
 *
 * 256 shards (the top 8 bits of the memberId hash), each an open-addressed table of 4-slot buckets (a 64-byte cache
 * line), probed bucket by bucket from the one the hash's low word scales to. A shard's buckets live in 16 KB pages;
 * once 7/8 of its slots are taken it grows by a quarter (at least a page), so the table stays 70–88% full. Growing
 * frees nothing: the shard's pages are copied to pages borrowed from a shared pool, cleared, joined by more pages
 * (from the pool first), and every slot is placed again; the borrowed pages go back to the pool, which holds about
 * one shard's worth. Tables that grew by copying left their old arrays for a full GC to free: +38 MB of peak RSS
 * at a million memberIds for an open table that doubled, +15 MB for this one with a new array per growth, 2–4 MB
 * of old bucket heads for the chained table this replaced (20-byte entries and 4 bytes a bucket: 24 MB at a
 * million, against 20 MB here). A resizable ArrayBuffer grows in place, but Node 20's V8 reads its arrays half as
 * fast; 4 KB pages (18 MB at a million) cost twice the CPU per new memberId (docs/performance.md).
 *
 * A slot is 4 words: [0] the high hash word, its top bit (the same in every slot of a shard, so implied) replaced by
 * DIFFERED; [1] the low word; [2] the content hash; [3] the first line (int32: a line past 2^31 reads back through
 * >>> 0; 0 marks an empty slot, as lines start at 1).
 */

/** What `observe` found: the memberId's first row, a repeat with the same content, or one with other content. */
export const Seen = { first: 0, same: 1, differs: 2, differsAgain: 3 } as const;
export type Seen = (typeof Seen)[keyof typeof Seen];

const SHARD_BITS = 8;
const SHARDS = 1 << SHARD_BITS;
const WORDS = 4;
const BUCKET_WORDS = WORDS * 4;
const PAGE_BUCKET_BITS = 8;
const PAGE_BUCKETS = 1 << PAGE_BUCKET_BITS;
const PAGE_WORDS = PAGE_BUCKETS * BUCKET_WORDS;
const DIFFERED = 0x80000000 | 0;
const HIGH_BITS = 0x7fffffff;
const TWO_32 = 4294967296;

export class MemberTable {
  readonly #pages: Int32Array[][] = [];
  readonly #taken = new Int32Array(SHARDS);
  readonly #pool: Int32Array[] = [];
  #allocated = 0;
  #size = 0;
  /** The first line of the memberId `observe` looked up last (for "also on line N"). */
  firstLine = 0;

  /** memberIds seen. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held, the pool's included (for the docs' memory figures and the tests). */
  get bytes(): number {
    return this.#allocated * PAGE_WORDS * 4;
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
    const shard = highWord >>> (32 - SHARD_BITS);
    const pages = this.#pages[shard] ?? this.#open(shard);
    const buckets = pages.length << PAGE_BUCKET_BITS;
    let bucket = homeBucket(lowWord, buckets);
    for (;;) {
      const slots = pages[bucket >>> PAGE_BUCKET_BITS]!;
      for (let at = (bucket & (PAGE_BUCKETS - 1)) * BUCKET_WORDS, end = at + BUCKET_WORDS; at < end; at += WORDS) {
        const storedLine = slots[at + 3]!;
        if (storedLine === 0) {
          slots[at] = highWord & HIGH_BITS;
          slots[at + 1] = lowWord;
          slots[at + 2] = content | 0;
          slots[at + 3] = line | 0;
          this.#added(shard, pages.length);
          this.firstLine = line;
          return Seen.first;
        }
        if (slots[at + 1] !== lowWord || ((slots[at]! ^ highWord) & HIGH_BITS) !== 0) continue;
        this.firstLine = storedLine >>> 0;
        if (slots[at + 2] === (content | 0)) return Seen.same;
        if (slots[at]! & DIFFERED) return Seen.differsAgain;
        slots[at] = slots[at]! | DIFFERED;
        return Seen.differs;
      }
      bucket = bucket + 1 === buckets ? 0 : bucket + 1;
    }
  }

  #open(shard: number): Int32Array[] {
    const pages = [this.#page()];
    this.#pages[shard] = pages;
    return pages;
  }

  /** A cleared page: from the pool, or new. */
  #page(): Int32Array {
    const page = this.#pool.pop();
    if (page) return page.fill(0);
    this.#allocated++;
    return new Int32Array(PAGE_WORDS);
  }

  #added(shard: number, pageCount: number): void {
    this.#size++;
    const taken = ++this.#taken[shard]!;
    if (taken * 8 > pageCount * PAGE_BUCKETS * 4 * 7) this.#grow(shard, pageCount + Math.max(1, pageCount >> 2));
  }

  /** The shard in `pageCount` pages: its slots copied aside to pooled pages, cleared, and placed again. */
  #grow(shard: number, pageCount: number): void {
    const pages = this.#pages[shard]!;
    const aside = pages.map((page) => {
      const copy = this.#pool.pop() ?? this.#newPage();
      copy.set(page);
      page.fill(0);
      return copy;
    });
    while (pages.length < pageCount) pages.push(this.#page());
    const buckets = pageCount << PAGE_BUCKET_BITS;
    for (const copy of aside) {
      for (let from = 0; from < PAGE_WORDS; from += WORDS) {
        if (copy[from + 3] === 0) continue;
        let bucket = homeBucket(copy[from + 1]!, buckets);
        let at = freeSlot(pages[bucket >>> PAGE_BUCKET_BITS]!, bucket);
        while (at < 0) {
          bucket = bucket + 1 === buckets ? 0 : bucket + 1;
          at = freeSlot(pages[bucket >>> PAGE_BUCKET_BITS]!, bucket);
        }
        const slots = pages[bucket >>> PAGE_BUCKET_BITS]!;
        slots[at] = copy[from]!;
        slots[at + 1] = copy[from + 1]!;
        slots[at + 2] = copy[from + 2]!;
        slots[at + 3] = copy[from + 3]!;
      }
    }
    this.#pool.push(...aside);
  }

  #newPage(): Int32Array {
    this.#allocated++;
    return new Int32Array(PAGE_WORDS);
  }
}

/** The bucket a low hash word scales to (its high bits: multiply-shift, no modulo), 0 to `buckets` − 1. */
function homeBucket(low: number, buckets: number): number {
  return Math.floor(((low >>> 0) / TWO_32) * buckets);
}

/** The first empty slot of `bucket` in its page (a word offset), or −1. */
function freeSlot(page: Int32Array, bucket: number): number {
  const start = (bucket & (PAGE_BUCKETS - 1)) * BUCKET_WORDS;
  for (let at = start; at < start + BUCKET_WORDS; at += WORDS) if (page[at + 3] === 0) return at;
  return -1;
}
