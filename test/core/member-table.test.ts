/** The duplicate check's compact table of memberIds, against a Map model; and the hashes it is fed. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemberTable, Seen } from '../../src/core/duplicates/member-table.js';
import { contentHash, idHash, idHashHigh } from '../../src/core/duplicates/member-hash.js';

interface ModelEntry {
  content: number;
  firstLine: number;
  differed: boolean;
}

/** What the table must answer, kept the plain way: a Map keyed by the whole 64-bit hash. */
function modelObserve(model: Map<string, ModelEntry>, high: number, low: number, content: number, line: number) {
  const key = `${high | 0}:${low | 0}`;
  const entry = model.get(key);
  if (!entry) {
    model.set(key, { content: content | 0, firstLine: line, differed: false });
    return { seen: Seen.first, firstLine: line };
  }
  if (entry.content === (content | 0)) return { seen: Seen.same, firstLine: entry.firstLine };
  const seen = entry.differed ? Seen.differsAgain : Seen.differs;
  entry.differed = true;
  return { seen, firstLine: entry.firstLine };
}

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

describe('MemberTable', () => {
  it('answers as a Map would, over rehashes and collisions (shared buckets, shared low words, shared high words)', () => {
    // few distinct keys drawn from narrow ranges: repeats, shared buckets and shared hash words are common
    const key = fc.record({
      top: fc.constantFrom(0, 1, 255),
      rest: fc.integer({ min: 0, max: 40 }),
      low: fc.oneof(fc.integer({ min: 0, max: 60 }), int32),
    });
    const op = fc.record({ key, content: fc.oneof(fc.integer({ min: 0, max: 2 }), int32) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const table = new MemberTable();
        const model = new Map<string, ModelEntry>();
        ops.forEach(({ key: { top, rest, low }, content }, i) => {
          const high = (top << 24) | rest;
          const line = i + 2;
          const expected = modelObserve(model, high, low, content, line);
          expect(table.observe(high, low, content, line)).toBe(expected.seen);
          expect(table.firstLine).toBe(expected.firstLine);
        });
        expect(table.size).toBe(model.size);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps lines up to 2^32 - 1 and refuses line 0', () => {
    const table = new MemberTable();
    expect(table.observe(1, 2, 3, 0xffffffff)).toBe(Seen.first);
    expect(table.observe(1, 2, 4, 5)).toBe(Seen.differs);
    expect(table.firstLine).toBe(0xffffffff);
    expect(() => table.observe(1, 3, 3, 0)).toThrow(RangeError);
  });

  // 16-byte slots, 70–88% full, growth through pooled pages (the chained table before: 25 bytes at a million, 31 at 200k)
  it('holds 200,000 and 1,000,000 memberIds in under 23 bytes each, its pool included', () => {
    const table = new MemberTable();
    for (let i = 1; i <= 1_000_000; i++) {
      const low = idHash(`M${i}`);
      table.observe(idHashHigh, low, 7, i);
      if (i === 200_000) expect(table.bytes / table.size).toBeLessThan(23);
    }
    expect(table.size).toBe(1_000_000);
    expect(table.bytes / table.size).toBeLessThan(23);
  });
});

describe('the hashes', () => {
  it('tell cells apart where they split, and a missing cell from an empty one', () => {
    expect(contentHash(['ab', ''])).not.toBe(contentHash(['a', 'b']));
    expect(contentHash([''])).not.toBe(contentHash([undefined]));
    expect(contentHash(['a', 'b'])).toBe(contentHash(['a', 'b']));
    expect(contentHash({ memberId: 'x', a: 1 })).toBe(contentHash({ memberId: 'x', a: 1 }));
    expect(contentHash({ memberId: 'x', a: 1 })).not.toBe(contentHash({ memberId: 'x', a: 2 }));
  });

  it("a JSON object's keys in another order are the same content, nested objects too; other values are not", () => {
    const first = { memberId: 'k1', isActive: true, firstName: 'A', custom: { x: 1, y: [1, { b: 2, a: 3 }] } };
    const reordered = { custom: { y: [1, { a: 3, b: 2 }], x: 1 }, firstName: 'A', isActive: true, memberId: 'k1' };
    expect(contentHash(reordered)).toBe(contentHash(first));
    expect(contentHash({ ...first, email: null })).not.toBe(contentHash(first));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: '1' }));
    expect(contentHash({ a: 1, b: 2 })).not.toBe(contentHash({ a: 2, b: 1 }));
    expect(contentHash({ a: { b: 1 } })).not.toBe(contentHash({ a: 1, b: 1 }));
    // array order still matters: it is part of the value
    expect(contentHash({ a: [1, 2] })).not.toBe(contentHash({ a: [2, 1] }));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), (object, seed) => {
        const keys = Object.keys(object);
        const shuffled = Object.fromEntries(
          keys.map((_, i) => keys[(i + seed) % keys.length]!).map((key) => [key, object[key]]),
        );
        expect(contentHash(shuffled)).toBe(contentHash(object));
      }),
    );
  });

  it('rows that differ in one character never hash alike (each step is a bijection)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), fc.nat(), fc.nat(), (cells, which, code) => {
        const c = which % cells.length;
        const cell = cells[c]!;
        if (cell.length === 0) return;
        const at = code % cell.length;
        const other = String.fromCharCode((cell.charCodeAt(at) + 1 + (code % 1000)) % 0x10000);
        if (other === cell[at]) return;
        const changed = [...cells];
        changed[c] = cell.slice(0, at) + other + cell.slice(at + 1);
        expect(contentHash(changed)).not.toBe(contentHash(cells));
      }),
    );
  });

  it('are the same in every run: pinned values (--resume and --shard compare across processes)', () => {
    const low = idHash('M000000001');
    expect([low, idHashHigh, contentHash(['M000000001', 'a@example.com'])]).toEqual([
      -754004871, -432127533, 1728794288,
    ]);
  });
});
