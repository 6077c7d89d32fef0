import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fnv1a32, parseShard, shardLabel, shardOf } from '../../src/state/shard.js';

describe('shard', () => {
  it('FNV-1a 32-bit matches the published test vectors', () => {
    // vectors from the FNV reference (draft-eastlake-fnv): "" , "a", "foobar"
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes of non-ASCII member ids', () => {
    const bytes = Buffer.from('Zoë-ß-会員', 'utf8');
    let hash = 0x811c9dc5;
    for (const b of bytes) hash = Math.imul(hash ^ b, 0x01000193);
    expect(fnv1a32('Zoë-ß-会員')).toBe(hash >>> 0);
  });

  it('puts every record in exactly one shard, for any n', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.integer({ min: 1, max: 64 }),
        (id, record, n) => {
          const owners = Array.from({ length: n }, (_, i) => i).filter((i) => shardOf(id, record, n) === i);
          expect(owners).toHaveLength(1);
        },
      ),
    );
  });

  it('spreads records without a memberId by record number', () => {
    expect([1, 2, 3, 4].map((r) => shardOf(undefined, r, 3))).toEqual([0, 1, 2, 0]);
    expect(shardOf('', 5, 3)).toBe(1);
  });

  it('parses i/n, 0-based, and refuses the rest with exit 2', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
    for (const bad of ['3/3', '1/0', '-1/3', 'a/b', '1', '1/3/4', '']) {
      expect(() => parseShard(bad), bad).toThrow(expect.objectContaining({ category: 'usage', code: 'shard' }));
    }
    expect(shardLabel({ index: 1, count: 3 })).toBe('shard-1-of-3');
  });
});
