import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { CellProblem, toDateTime } from '../../src/core/mapping/coerce.js';

const schemaDateTime = z.iso.datetime({ offset: true });
const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('toDateTime on a plain date (yyyy-mm-dd)', () => {
  it('accepts exactly the days the schema accepts as midnight UTC, leap years included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (y, m, d) => {
          const cell = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
          const schemaSays = schemaDateTime.safeParse(`${cell}T00:00:00.000Z`).success;
          const result = toDateTime(cell);
          expect(result instanceof CellProblem).toBe(!schemaSays);
          if (schemaSays) expect(result).toBe(`${cell}T00:00:00.000Z`);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('knows the edges of February', () => {
    expect(toDateTime('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(toDateTime('2000-02-29')).toBe('2000-02-29T00:00:00.000Z');
    expect(toDateTime('1900-02-29')).toBeInstanceOf(CellProblem);
    expect(toDateTime('2023-02-29')).toBeInstanceOf(CellProblem);
    expect(toDateTime('1985-13-01')).toBeInstanceOf(CellProblem);
  });

  it('takes as a plain date exactly what /^(\\d{4})-(\\d{2})-(\\d{2})$/ matched (read by character codes since)', () => {
    const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
    const near = fc
      .array(fc.constantFrom('0', '1', '2', '9', '-', '/', ' ', '\n', '٣', 'x', 'T'), { minLength: 8, maxLength: 12 })
      .map((chars) => chars.join(''));
    const shaped = fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }))
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
    const edited = fc
      .tuple(shaped, fc.nat(9), fc.constantFrom('٣', '/', 'a', '', '00'))
      .map(([cell, at, put]) => cell.slice(0, at) + put + cell.slice(at + 1));
    fc.assert(
      fc.property(fc.oneof(near, shaped, edited, fc.string({ maxLength: 12 })), (cell) => {
        const result = toDateTime(cell);
        const plain = PLAIN_DATE.test(cell);
        if (!plain) expect(result).toBe(cell);
        else expect(result === `${cell}T00:00:00.000Z` || result instanceof CellProblem).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('passes anything else to the schema as written', () => {
    expect(toDateTime('2024-05-01T12:00:00+02:00')).toBe('2024-05-01T12:00:00+02:00');
    expect(toDateTime('01/05/2024')).toBe('01/05/2024');
  });
});
