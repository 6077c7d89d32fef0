/**
 * Work per cell (issue 26 item 3) and phones that say what is wrong (issue 24 item 5): each conversion refuses a
 * cell longer than its natural bound at once, every message quotes a cell short with its length, and the rejects
 * file keeps the record as written while its reason stays short.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CELL_LIMITS, quoteCell } from '../../src/core/mapping/quote-cell.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { createRecordMapper } from '../../src/core/mapping/index.js';
import { cellReader as reader, issuesOf } from './mapping-helpers.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-cell-bounds-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

const MB10 = 10 * 1024 * 1024;

describe('a cell longer than its rule reads is refused at once, quoted short', () => {
  it('quoteCell keeps a short cell whole and cuts a long one, keeping its length', () => {
    expect(quoteCell('Narnia')).toBe('"Narnia"');
    expect(quoteCell('a'.repeat(MB10))).toBe(`"${'a'.repeat(40)}…" (10,485,760 characters)`);
    // a surrogate pair is never cut in two
    expect(quoteCell(`${'a'.repeat(39)}😀${'b'.repeat(10)}`)).toBe(`"${'a'.repeat(39)}…" (51 characters)`);
  });

  it('countryCode, e164 and a date format each have a bound; past it the message says so', () => {
    const big = 'x'.repeat(MB10);
    expect(reader({ field: 'address.countryCode', convert: 'countryCode' })(big)).toEqual([
      `address.countryCode: too long (10,485,760 characters): a country is at most ${CELL_LIMITS.country}, got "${'x'.repeat(40)}…" (10,485,760 characters) (column "X")`,
    ]);
    expect(reader({ field: 'phone', convert: 'e164' })(`+47${big}`)).toEqual([
      `phone: too long (10,485,763 characters): a phone number is at most ${CELL_LIMITS.phone}, got "+47${'x'.repeat(37)}…" (10,485,763 characters) (column "X")`,
    ]);
    expect(reader({ field: 'createdAt', format: 'dd.MM.yyyy' })(big)).toEqual([
      `createdAt: too long (10,485,760 characters): a date is at most ${CELL_LIMITS.date}, got "${'x'.repeat(40)}…" (10,485,760 characters) (column "X")`,
    ]);
    // at the bound, the rule still reads the cell
    const name = 'Norway'.padEnd(CELL_LIMITS.country, ' ');
    expect(reader({ field: 'address.countryCode', convert: ['countryCode'][0] })(name.trimEnd())).toMatchObject({
      address: { countryCode: 'NO' },
    });
  });

  it('values, booleans and numbers quote a long cell short', () => {
    const big = 'y'.repeat(MB10);
    const [values] = reader({ field: 'loyaltyProgram', values: { g: 'gold' } })(big) as string[];
    expect(values).toBe(
      `loyaltyProgram: "${'y'.repeat(40)}…" (10,485,760 characters) is not one of the values the mapping lists ("g"); add it to "values", or give "otherwise" (column "X")`,
    );
    const [number] = reader({ field: 'customProperties.n', type: 'number' })(big) as string[];
    expect(number).toBe(
      `customProperties.n: expected a number, got "${'y'.repeat(40)}…" (10,485,760 characters) (column "X")`,
    );
  });

  it('the rejects file keeps each record as written; its error column and the sample stay short', async () => {
    const big = 'z'.repeat(2 * 1024 * 1024);
    const path = join(dir, 'big.csv');
    await writeFile(
      path,
      `memberId,isActive,createdAt,country\nA1,maybe${big},2024-01-01,Norway\nA2,true,2024-01-01,${big}\nA3,true,2024-01-01,${big}\nA4,true,2024-01-01,${big}\n${big},true,2024-01-01,Norway\n`,
    );
    const map = join(dir, 'map.json');
    await writeFile(
      map,
      JSON.stringify({ columns: { country: { field: 'address.countryCode', convert: 'countryCode' } } }),
    );
    const rejects = join(dir, 'rejects.ndjson');
    const stats = await validateFile({ path, rejectsPath: rejects, mapFile: map });
    expect(stats.invalid).toBe(5);
    const lines = (await readFile(rejects, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const rejected = JSON.parse(line) as Record<string, unknown>;
      expect(JSON.stringify(rejected).length).toBeGreaterThan(big.length); // the record, as written
      const { input: _kept, ...rest } = rejected;
      expect(JSON.stringify(rest).length, JSON.stringify(rest).slice(0, 300)).toBeLessThan(400);
    }
    expect(JSON.stringify(stats.sample).length).toBeLessThan(2500);
    // a memberId no API takes is shown cut, with its length (the record keeps it whole)
    expect(JSON.parse(lines[4]!).memberId).toBe(`${'z'.repeat(40)}… (2,097,152 characters)`);
    expect(stats.sample[4]!.memberId).toBe(`${'z'.repeat(40)}… (2,097,152 characters)`);
  });
});

describe('a JSON key is shown cut too', () => {
  it('an unknown 10 MB key, or a metadata key, names its first characters and its length, without a did-you-mean', () => {
    const big = 'k'.repeat(MB10);
    const base = { memberId: 'm1', isActive: true, createdAt: '2024-01-01T00:00:00Z' };
    const mapper = createRecordMapper('ndjson', undefined, { file: 'x.ndjson' });
    const read = (raw: object) => issuesOf(mapper.toCandidate({ record: 1, line: 1, raw }));
    expect(read({ ...base, [big]: 1 })).toEqual([
      `${'k'.repeat(40)}… (10,485,760 characters): unknown property: the API's upsert item has no such field`,
    ]);
    expect(read({ ...base, metadata: { [big]: {} } })).toEqual([
      `metadata.${'k'.repeat(40)}… (10,485,760 characters): expected string, got an object (JSON values are not coerced)`,
    ]);
  });
});

describe('phones say what is wrong (issue 24 item 5)', () => {
  const phone = (cell: string, defaultRegion?: string) =>
    reader({ field: 'phone', convert: 'e164', ...(defaultRegion ? { defaultRegion } : {}) })(cell);

  it('too short, too long, not a number its country has, a calling code no country has, no country code', () => {
    expect(phone('+46 70 123')).toEqual([
      'phone: "+46 70 123": too short for a phone number in Sweden (+46) (column "X")',
    ]);
    expect(phone('+46 70 123 45 67 89 12 34')).toEqual([
      'phone: "+46 70 123 45 67 89 12 34": too long for a phone number in Sweden (+46) (column "X")',
    ]);
    expect(phone('+46 00 123 45 67')).toEqual([
      'phone: "+46 00 123 45 67": not a valid number in Sweden (+46): no number there is written so (column "X")',
    ]);
    expect(phone('+1 555 010 0100')).toEqual([
      'phone: "+1 555 010 0100": not a valid number for calling code +1 (US, AG, AI, … 25 countries): no number there is written so (column "X")',
    ]);
    expect(phone('+999 123456')).toEqual([
      'phone: "+999 123456": its country calling code is not one any country has (column "X")',
    ]);
    expect(phone('0701 23 45 67')).toEqual([
      'phone: "0701 23 45 67": it has no + country code: write the number with one (+47 …), or set "defaultRegion" (column "X")',
    ]);
    expect(phone('123', 'NO')).toEqual(['phone: "123": too short for a phone number in Norway (+47) (column "X")']);
    expect(phone('call me')).toEqual(['phone: "call me": not a phone number (column "X")']);
    expect(phone('+47 912 34 567')).toMatchObject({ phone: '+4791234567' });
  });
});
