/**
 * The hashes the duplicate check keeps instead of the memberIds and rows themselves: 64 bits of a memberId and 32
 * bits of a row's content. The mixing is cyrb53's (bryc, public domain: two 32-bit multiply-xor lanes over UTF-16
 * code units, then an avalanche), kept whole as 64 bits. Hand-written because it runs on every row: it reads the
 * string where it is, allocating nothing (no UTF-8 copy, no Buffer, no BigInt), and is the same in every run and
 * process, which --resume and --shard rely on. Not a cryptographic hash: the odds are in docs/decisions.md.
 */

/** The high lane of the last `idHash` (a signed 32-bit integer): read right after the call (no array per row). */
export let idHashHigh = 0;

/**
 * 64 bits of a memberId: returns the low 32 bits; the high 32 are in `idHashHigh`. Both are signed 32-bit integers,
 * which V8 keeps unboxed (an unsigned one past 2^31 would be a heap number on every row).
 */
export function idHash(memberId: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < memberId.length; i++) {
    const code = memberId.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  return finish(h1, h2);
}

/** The lanes' avalanche: sets `idHashHigh`, returns the low word. */
function finish(a: number, b: number): number {
  let h1 = Math.imul(a ^ (a >>> 16), 2246822507);
  h1 ^= Math.imul(b ^ (b >>> 13), 3266489909);
  let h2 = Math.imul(b ^ (b >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  idHashHigh = h2 | 0;
  return h1 | 0;
}

/** Marks that no UTF-16 code unit (0–0xffff) equals: the end of a cell or string, a missing cell, a value's kind. */
const END = 0x10000;
const NO_CELL = 0x10001;
const NUMBER = 0x10002;
const TRUE = 0x10003;
const FALSE = 0x10004;
const NULL = 0x10005;
const ARRAY = 0x10006;
const OBJECT = 0x10007;
const OTHER = 0x10008;
const M = 2654435761;
const float = new Float64Array(1);
const floatWords = new Int32Array(float.buffer);

/**
 * 32 bits of a record as read: a CSV or workbook row's cells (every column, in order), or a JSON record's keys and
 * values in any order (what its JSON text says, whitespace and the order of an object's keys aside; walked, not stringified: JSON.stringify per record
 * cost NDJSON's validate 88% more CPU); an unreadable record's raw text as it is. One multiply-xor lane over the
 * UTF-16 code units (each step a bijection, so rows that differ in one character never collide) and murmur3's
 * final mix.
 */
export function contentHash(raw: unknown): number {
  let h = 0x9e3779b9 | 0;
  if (Array.isArray(raw)) {
    for (let c = 0; c < raw.length; c++) {
      const cell: unknown = raw[c];
      h = typeof cell === 'string' ? Math.imul(mix(h, cell) ^ END, M) : mixValue(Math.imul(h ^ NO_CELL, M), cell);
    }
  } else {
    h = mixValue(h, raw);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function mix(start: number, text: string): number {
  let h = start;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), M);
  return h;
}

function mixValue(start: number, value: unknown): number {
  let h = start;
  switch (typeof value) {
    case 'string':
      return Math.imul(mix(h, value) ^ END, M);
    case 'number':
      float[0] = value;
      h = Math.imul(h ^ NUMBER, M);
      h = Math.imul(h ^ floatWords[0]!, M);
      return Math.imul(h ^ floatWords[1]!, M);
    case 'boolean':
      return Math.imul(h ^ (value ? TRUE : FALSE), M);
    case 'object':
      break;
    default:
      return Math.imul(h ^ OTHER, M);
  }
  if (value === null) return Math.imul(h ^ NULL, M);
  if (Array.isArray(value)) {
    h = Math.imul(h ^ ARRAY, M);
    for (let i = 0; i < value.length; i++) h = mixValue(h, value[i]);
    return Math.imul(h ^ END, M);
  }
  // an object's members in any order are one object: each key-value pair is hashed on its own and the pairs are
  // summed (addition is commutative), so {"a":1,"b":2} and {"b":2,"a":1} hash the same
  const object = value as Record<string, unknown>;
  let sum = 0;
  let pairs = 0;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    sum = (sum + avalanche(mixValue(Math.imul(mix(PAIR_SEED, key) ^ END, M), object[key]))) | 0;
    pairs++;
  }
  h = Math.imul(h ^ OBJECT, M);
  h = Math.imul(h ^ pairs, M);
  return Math.imul(Math.imul(h ^ sum, M) ^ END, M);
}

const PAIR_SEED = 0x7f4a7c15;

/** murmur3's final mix: a pair's hash spread over all 32 bits before it is summed with the others. */
function avalanche(start: number): number {
  let h = Math.imul(start ^ (start >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
