/**
 * A value lands exactly as the file holds it, or the record is refused (or the optional field left out with
 * "onInvalid": "omit"): never rounded, cut or guessed (docs/decisions.md, "Mapping rules: exact or refused").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { survivesAsDouble } from '../../src/schemas/exact-number.js';
import { issuesOf } from './mapping-helpers.js';

/** What a cell of column X becomes under `rule`: the item, or the record's issues. */
function reader(rule: object) {
  const mapping = parseMapping(
    {
      columns: { Id: 'memberId', X: rule },
      fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
    },
    'm.json',
  );
  const mapper = createRecordMapper('csv', ['Id', 'X'], { file: 'x.csv', mapping });
  return (cell: string) => {
    const c = mapper.toCandidate({ record: 1, line: 2, raw: ['m', cell] });
    return c.valid ? c.item : issuesOf(c);
  };
}

describe('numbers a double cannot hold as written', () => {
  const read = reader({ field: 'customProperties.n', type: 'number' });

  it('a CSV cell of type number whose digits would be rounded is refused, saying what would be sent', () => {
    expect(read('12345678901234567890')).toEqual([
      'customProperties.n: "12345678901234567890" cannot be held exactly as a number (it would be sent as 12345678901234567000): give the column "type": "string" to send it as text (column "X")',
    ]);
    expect(read('9007199254740993')).toHaveLength(1);
    expect(read('0.1000000000000000055511151231257827')).toHaveLength(1);
    expect(read('1e-400')).toHaveLength(1);
  });

  it('numbers a double holds exactly are sent as their value, however written', () => {
    for (const [cell, n] of [
      ['9007199254740992', 9007199254740992],
      ['0.1', 0.1],
      ['1.50', 1.5],
      ['1E2', 100],
      ['-0', -0],
      ['42.5', 42.5],
    ] as const)
      expect(read(cell)).toMatchObject({ customProperties: { n } });
  });

  it('every double, written as JSON writes it (or with its exponent spelled out), survives', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(survivesAsDouble(JSON.stringify(x))).toBe(true);
        expect(survivesAsDouble(x.toExponential())).toBe(true);
      }),
    );
  });

  it('an integer beyond 2^53 that is not a double survives only when it is one', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }), (n) => {
        expect(survivesAsDouble(n.toString())).toBe(BigInt(Number(n)) === n);
      }),
    );
  });
});
