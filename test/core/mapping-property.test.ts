import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecordMapper } from '../../src/core/mapping/index.js';
import { buildCsvMapper } from '../../src/core/mapping/csv-mapper.js';
import { memberUpsertItemSchema } from '../../src/schemas/index.js';
import { expectZodsText } from './mapping-helpers.js';

const HEADERS = [
  'memberId',
  'Member ID',
  'email',
  'first_name',
  'isActive',
  'createdAt',
  'birthdate',
  'isEmployee',
  'deceased',
  'address.city',
  'Address.Zip Code',
  'metadata.__proto__',
  'metadata.tier',
  'customProperties.constructor',
  'phone',
];
// cells that hit the interesting paths: empty, blanks, booleans, dates, long strings, the null token, odd unicode
const cell = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'true',
    'N',
    '0',
    'maybe',
    '2024-05-01',
    '2024-02-30',
    '2024-05-01T12:00:00Z',
    'NULL',
    '__proto__',
    '{"a":1}',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 30, maxLength: 300, unit: 'grapheme' }),
);

describe('mapping + validation, random records', () => {
  it('CSV: never throws, each record is valid xor invalid, valid items pass the schema, counts add up', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.constantFrom(...HEADERS), {
            minLength: 1,
            maxLength: 12,
            selector: (h) => h.toLowerCase().replace(/[\s_-]/g, ''),
          })
          .chain((headers) =>
            fc
              .boolean()
              .map((complete) =>
                complete
                  ? [
                      ...new Set([
                        ...headers,
                        'isActive',
                        'createdAt',
                        ...(headers.some((h) => /^member ?id$/i.test(h)) ? [] : ['memberId']),
                      ]),
                    ]
                  : headers,
              ),
          ),
        fc.array(fc.array(cell, { maxLength: 12 }), { maxLength: 30 }),
        fc.option(fc.constant('NULL'), { nil: undefined }),
        (headers, rows, nullToken) => {
          const given = new Set(headers.map((h) => h.toLowerCase().replace(/[\s_-]/g, '')));
          if (!['memberid', 'isactive', 'createdat'].every((f) => given.has(f))) {
            // a required field no column gives is refused once, before any row
            expect(() => createRecordMapper('csv', headers, { file: 'p.csv', nullToken })).toThrow(
              /no column gives the required field/,
            );
            return;
          }
          const mapper = createRecordMapper('csv', headers, { file: 'p.csv', nullToken });
          const csv = buildCsvMapper(headers, { file: 'p.csv', nullToken });
          let valid = 0;
          let invalid = 0;
          rows.forEach((cells, i) => {
            const c = mapper.toCandidate({ record: i + 1, line: i + 2, raw: cells });
            expect(c.record).toBe(i + 1);
            expectZodsText(c, csv.build(cells).item);
            if (c.valid) {
              valid++;
              expect(memberUpsertItemSchema.safeParse(JSON.parse(JSON.stringify(c.item))).success).toBe(true);
            } else {
              invalid++;
              expect(c.issues.length).toBeGreaterThan(0);
              for (const issue of c.issues) expect(issue.message.length).toBeGreaterThan(0);
            }
          });
          expect(valid + invalid).toBe(rows.length);
          expect(({} as Record<string, unknown>).tier).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('JSON: any value never throws and is accounted for', () => {
    const mapper = createRecordMapper('ndjson', undefined, { file: 'p.ndjson' });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.jsonValue(),
            fc.record(
              {
                memberId: fc.string(),
                isActive: fc.boolean(),
                createdAt: fc.constant('2024-05-01T12:00:00Z'),
                metadata: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constant(null))),
              },
              { requiredKeys: [] },
            ),
          ),
          { maxLength: 30 },
        ),
        (values) => {
          const candidates = values.map((raw, i) => mapper.toCandidate({ record: i + 1, line: i + 1, raw }));
          expect(candidates.filter((c) => c.valid).length + candidates.filter((c) => !c.valid).length).toBe(
            values.length,
          );
          for (const c of candidates)
            if (c.valid) expect(JSON.parse(JSON.stringify(c.item))).toEqual(JSON.parse(JSON.stringify(c.raw)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
