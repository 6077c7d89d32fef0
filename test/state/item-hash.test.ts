import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, itemHash } from '../../src/state/item-hash.js';

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, seed));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const rotated = entries
    .slice(seed % Math.max(entries.length, 1))
    .concat(entries.slice(0, seed % Math.max(entries.length, 1)))
    .reverse();
  const out: Record<string, unknown> = {};
  for (const [k, v] of rotated)
    Object.defineProperty(out, k, {
      value: shuffleKeys(v, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

describe('item hash', () => {
  it('ignores key order at every depth and round-trips as JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        expect(canonicalJson(shuffleKeys(value, seed))).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
        expect(itemHash(shuffleKeys(value, seed))).toBe(itemHash(value));
      }),
    );
  });

  it('sees any change of a value, a null or an added field', () => {
    const base = {
      memberId: 'm1',
      isActive: true,
      createdAt: '2024-01-01T00:00:00Z',
      email: 'a@example.com',
      metadata: { tier: 'gold' },
    };
    const variants = [
      { ...base, email: 'b@example.com' },
      { ...base, email: null },
      { ...base, isActive: false },
      { ...base, phone: '+33 1' },
      { ...base, metadata: { tier: 'Gold' } },
      { ...base, metadata: { tier: 'gold', x: null } },
    ];
    const hashes = new Set([base, ...variants].map((v) => itemHash(v)));
    expect(hashes.size).toBe(variants.length + 1);
    expect(itemHash(base)).toMatch(/^[A-Za-z0-9+/]{22}$/);
  });

  it('treats an undefined member like an absent one, and keeps an own __proto__ key', () => {
    expect(canonicalJson({ b: 1, a: undefined })).toBe('{"b":1}');
    const metadata = JSON.parse('{"__proto__":"x","z":"y"}') as Record<string, string>;
    expect(canonicalJson({ metadata })).toBe('{"metadata":{"__proto__":"x","z":"y"}}');
    expect(itemHash({ metadata })).not.toBe(itemHash({ metadata: { z: 'y' } }));
  });
});
