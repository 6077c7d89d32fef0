/**
 * A mapping's output is judged exactly as the sandbox judges it: for random mappings built from every rule and
 * random rows (valid cells, near misses, garbage), a record is valid exactly when no rule refused a cell and the
 * sandbox's own validation accepts the item as it would be sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCsvMapper } from '../../src/core/mapping/csv-mapper.js';
import { parseMapping } from '../../src/core/mapping/index.js';
import { validateImportBody } from '../../src/sandbox/validation.js';
import { expectZodsText } from './mapping-helpers.js';

const HEADERS = ['Id', 'Status', 'Created', 'Born', 'Country', 'Phone', 'Work', 'Home', 'Score', 'Tier', 'Name'];

const ruleFor: Record<string, fc.Arbitrary<unknown>> = {
  Id: fc.constantFrom('memberId', { field: 'memberId', transform: ['trim', 'uppercase'] }, [
    'memberId',
    'metadata.crmId',
  ]),
  Status: fc
    .record({ field: fc.constant('isActive'), values: fc.constant({ Active: true, lapsed: false, paused: 'no' }) })
    .chain((rule) =>
      fc
        .option(fc.constantFrom(true, false, null, 'maybe'), { nil: undefined })
        .map((otherwise) => (otherwise === undefined ? rule : { ...rule, otherwise })),
    ),
  Created: fc.constantFrom(
    { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'America/New_York' },
    { field: 'createdAt', format: 'dd.MM.yyyy', timeZone: 'Europe/Oslo' },
    { field: 'createdAt', timeZone: 'Europe/Oslo' },
    { field: 'createdAt', format: 'M/d/yy h:mm a', timeZone: 'UTC' },
    'createdAt',
  ),
  Born: fc.constantFrom(
    { field: 'birthdate', format: 'dd-MM-yyyy' },
    { field: 'birthdate', format: 'd MMM yyyy', emptyAsNull: true },
    null,
  ),
  Country: fc.constantFrom({ field: 'address.countryCode', convert: 'countryCode' }, 'address.countryCode', {
    field: 'nationality',
    transform: ['uppercase'],
  }),
  Phone: fc.constantFrom(
    { field: 'phone', convert: 'e164', defaultRegion: 'US' },
    { field: 'phone', convert: 'e164' },
    'homeTelephone',
  ),
  Score: fc.constantFrom(
    { field: 'customProperties.score', type: 'number' },
    { field: 'customProperties.score', type: 'json' },
    'metadata.score',
  ),
  Tier: fc.constantFrom('loyaltyProgram', { field: 'metadata.tier', values: { g: 'gold' }, otherwise: null }),
  Name: fc.constantFrom({ field: 'firstName', transform: ['collapseSpaces'] }, null),
};

const mappingArb = fc
  .record({
    columns: fc.record(ruleFor, { requiredKeys: ['Id', 'Status'] }),
    withEmail: fc.boolean(),
    createdValue: fc.option(fc.constantFrom('2024-01-01T00:00:00Z', 'yesterday'), { nil: undefined }),
    tierDefault: fc.option(fc.constantFrom('basic', 'x'.repeat(70)), { nil: undefined }),
  })
  .map(({ columns, withEmail, createdValue, tierDefault }) => {
    const fields: Record<string, unknown> = {};
    if (withEmail) fields.email = { firstOf: ['Work', 'Home'], transform: ['lowercase'] };
    if (!('Created' in columns)) fields.createdAt = { value: createdValue ?? '2024-01-01T00:00:00Z' };
    if (tierDefault !== undefined && columns.Tier === 'loyaltyProgram')
      fields.loyaltyProgram = { default: tierDefault };
    return { columns, fields };
  });

const cellArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'C-1',
      'active',
      'LAPSED',
      'paused',
      'gone',
      '2023-03-12 02:30',
      '2023-11-05 01:30',
      '05.01.2023',
      '31.02.2023',
      '2023-01-05',
      '2023-01-05T10:00:00Z',
      '1/5/23 1:07 PM',
      '13/5/23 1:07 PM',
      '27-01-2014',
      '5 Jan 2014',
      'Chile',
      'USA',
      'Atlantis',
      'DEU',
      'no',
      '(212) 555-0123',
      '+47 912 34 567',
      '12345',
      'A@B.C',
      '4.5',
      '[1,',
      '{"a":1}',
      'g',
      'x'.repeat(70),
      '  Anna   Maria  ',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
);

describe("a mapping's output against the sandbox's judgement", () => {
  it('valid exactly when no rule refused a cell and the sandbox accepts the item as sent', () => {
    fc.assert(
      fc.property(
        mappingArb,
        fc.array(fc.array(cellArb, { minLength: HEADERS.length, maxLength: HEADERS.length }), {
          minLength: 1,
          maxLength: 10,
        }),
        (json, rows) => {
          const mapper = buildCsvMapper(HEADERS, {
            file: 'p.csv',
            mapping: parseMapping(json, 'p.json'),
            ignoreUnknownColumns: true,
          });
          rows.forEach((cells, i) => {
            const candidate = mapper.toCandidate({ record: i + 1, line: i + 2, raw: cells });
            const { item, problems } = mapper.build(cells);
            const sandbox = validateImportBody([JSON.parse(JSON.stringify(item))]);
            expect(candidate.valid).toBe(!problems && sandbox.ok);
            if (candidate.valid)
              expect(JSON.parse(JSON.stringify(candidate.item))).toEqual(JSON.parse(JSON.stringify(item)));
            else expect(candidate.issues.length).toBeGreaterThan(0);
            expectZodsText(candidate, item);
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
