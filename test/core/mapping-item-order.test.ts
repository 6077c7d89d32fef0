/**
 * A CSV row's item is checked in place (schemas/member-check.ts) instead of parsed by zod, which gave back a copy in
 * the schema's order: the mapper fills the item in that order, so the text sent stays zod's copy's, whatever the
 * columns' order. Rows of mostly valid cells, every field present, columns shuffled.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCsvMapper } from '../../src/core/mapping/csv-mapper.js';
import { parseMapping } from '../../src/core/mapping/index.js';
import { mapKindFor } from '../../src/core/mapping/item-paths.js';
import { memberUpsertItemSchema } from '../../src/schemas/index.js';
import { expectZodsText, issuesOf } from './mapping-helpers.js';

const COLUMNS: Record<string, fc.Arbitrary<string>> = {
  memberId: fc.constantFrom('M-1', 'a"b', 'x'.repeat(37)),
  email: fc.constantFrom('a@b.se', ''),
  firstName: fc.constantFrom('Anna', 'Ånna\\', ''),
  lastName: fc.constantFrom('Svensson', '\u0001'),
  phone: fc.constantFrom('+46 70 1', ''),
  birthdate: fc.constantFrom('1980-02-29', '1981-02-29', '1980-01-01T00:00:00+01:00', ''),
  isActive: fc.constantFrom('true', 'no', 'maybe'),
  createdAt: fc.constantFrom('2024-01-05T09:00:00Z', '2024-01-05'),
  genderId: fc.constantFrom('f', ''),
  isEmployee: fc.constantFrom('1', ''),
  nationality: fc.constantFrom('SE', ''),
  deceased: fc.constantFrom('false', ''),
  homeTelephone: fc.constantFrom('08 1', ''),
  isMembershipFeePaid: fc.constantFrom('y', ''),
  'address.countryCode': fc.constantFrom('SE', 'SWE', ''),
  'address.city': fc.constantFrom('Oslo', ''),
  'address.zipCode': fc.constantFrom('0150', ''),
  'metadata.tier': fc.constantFrom('gold', ''),
  'metadata.2': fc.constantFrom('x', ''),
  'metadata.__proto__': fc.constantFrom('p', ''),
  'customProperties.note': fc.constantFrom('n', '"q"', ''),
};

describe('a CSV row’s item, checked in place', () => {
  it('sends what zod’s copy of it would have sent, in any column order', () => {
    let valid = 0;
    fc.assert(
      fc.property(
        fc
          .shuffledSubarray(Object.keys(COLUMNS), { minLength: Object.keys(COLUMNS).length })
          .chain((headers) =>
            fc.tuple(
              fc.constant(headers),
              fc.array(fc.tuple(...headers.map((h) => COLUMNS[h]!)), { minLength: 1, maxLength: 10 }),
            ),
          ),
        ([headers, rows]) => {
          const mapper = buildCsvMapper(headers, { file: 'o.csv' });
          rows.forEach((cells, i) => {
            const candidate = mapper.toCandidate({ record: i + 1, line: i + 2, raw: cells });
            const { item, problems } = mapper.build(cells);
            expect(candidate.valid).toBe(!problems && memberUpsertItemSchema.safeParse(item).success);
            if (candidate.valid) valid++;
            expectZodsText(candidate, item);
          });
        },
      ),
      { numRuns: 200 },
    );
    expect(valid).toBeGreaterThan(50);
  });

  it('lists a row’s problems in its columns’ order, not the schema’s', () => {
    const mapping = parseMapping(
      {
        columns: {
          Town: { field: 'address.city', values: { a: 'A' } },
          Zip: { field: 'address.zipCode', values: { b: 'B' } },
        },
      },
      'm.json',
    );
    const mapper = buildCsvMapper(['memberId', 'isActive', 'createdAt', 'Town', 'Zip'], { file: 'o.csv', mapping });
    const candidate = mapper.toCandidate({ record: 1, line: 2, raw: ['M', 'true', '2024-01-05', 'x', 'y'] });
    expect(issuesOf(candidate).map((line) => line.split(':')[0])).toEqual(['address.city', 'address.zipCode']);
  });

  it('makes metadata and customProperties plain objects, or maps without a prototype for a key `{}` already has', () => {
    expect(mapKindFor([{ kind: 'metadata', key: 'tier' }])).toBe('plain');
    for (const key of ['__proto__', 'toString', 'constructor', 'hasOwnProperty'])
      expect(
        mapKindFor([
          { kind: 'metadata', key: 'tier' },
          { kind: 'customProperties', key, type: 'string' },
        ]),
      ).toBe('bare');
    const headers = ['memberId', 'isActive', 'createdAt', 'metadata.tier', 'metadata.toString', 'metadata.__proto__'];
    const mapping = parseMapping({ fields: { 'customProperties.constructor': { value: 'c' } } }, 'm.json');
    for (const options of [{ file: 'o.csv' }, { file: 'o.csv', mapping, ignoreUnknownColumns: true }]) {
      const mapper = buildCsvMapper(headers, options);
      const candidate = mapper.toCandidate({ record: 1, line: 2, raw: ['M', 'true', '2024-01-05', 'g', 't', 'p'] });
      expect(candidate.valid).toBe(true);
      const { metadata } = (candidate as { item: { metadata: object } }).item;
      expect(Object.getPrototypeOf(metadata)).toBe(null);
      expect(JSON.stringify(metadata)).toBe('{"tier":"g","toString":"t","__proto__":"p"}');
    }
    const plain = buildCsvMapper(['memberId', 'isActive', 'createdAt', 'metadata.tier'], { file: 'o.csv' });
    const candidate = plain.toCandidate({ record: 1, line: 2, raw: ['M', 'true', '2024-01-05', 'g'] });
    const { metadata } = (candidate as { item: { metadata: object } }).item;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(JSON.stringify(candidate.valid && candidate.item)).toBe(
      '{"memberId":"M","isActive":true,"createdAt":"2024-01-05T00:00:00.000Z","metadata":{"tier":"g"}}',
    );
  });
});
