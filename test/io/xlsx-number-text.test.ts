/**
 * A number cell's text read from its decimal digits (src/io/xlsx/number-text.ts): the same value in every spelling
 * Excel or another writer uses gives the same text, which is the value a double of 15 significant digits holds;
 * a whole part longer than 15 digits is refused, never rounded or padded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readNumber } from '../../src/io/xlsx/number-text.js';

const textOf = (value: string) => {
  const reading = readNumber(value);
  return reading.kind === 'number' ? reading.text : reading.kind;
};

describe('xlsx number text', () => {
  it('a double of up to 15 significant digits reads as its value, in any spelling (plain, exponent, signs)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }), (d) => {
        const shown = Number(d.toPrecision(15));
        const text = textOf(String(shown));
        expect(Number(text)).toBe(shown === 0 ? 0 : shown);
        expect(text).not.toMatch(/e/i);
        expect(textOf(shown.toExponential())).toBe(text);
        expect(textOf(shown.toExponential().toUpperCase().replace('E+', 'E'))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('a whole number keeps its digits up to 15; one of 16 digits or more (not counting trailing zeros) is refused', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), (n) => {
        const digits = (n < 0n ? -n : n).toString().replace(/0+$/, '');
        const reading = readNumber(n.toString());
        if (digits.length <= 15) expect(reading).toMatchObject({ kind: 'number', text: n.toString() });
        else expect(reading).toEqual({ kind: 'too-long', digits: digits.length });
      }),
      { numRuns: 2000 },
    );
  });

  it('a fraction past 15 significant digits is rounded half away from zero, as Excel shows it', () => {
    expect(textOf('0.30000000000000004')).toBe('0.3');
    expect(textOf('-0.1234567890123456')).toBe('-0.123456789012346');
    expect(textOf('999999999999999.97')).toBe('1000000000000000');
    expect(textOf('1E-7')).toBe('0.0000001');
    expect(textOf('-0')).toBe('0');
    expect(textOf('1e400')).toBe('not-a-number');
  });
});
