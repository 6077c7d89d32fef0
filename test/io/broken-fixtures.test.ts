/** Every small broken sample in fixtures/ gives its specific message: error records where reading can go on, an InputError where it cannot. */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readAll } from './reader-helpers.js';

const errorsOf = (records: { record: number; line: number; error?: { message: string } }[]) =>
  records.filter((r) => r.error).map((r) => [r.record, r.line, r.error!.message]);

describe('broken fixtures', () => {
  it('fixtures/broken/malformed-element.json: two error records, the others read', async () => {
    const { records, error } = await readAll({ path: 'fixtures/broken/malformed-element.json' });
    expect(error).toBeUndefined();
    expect(records).toHaveLength(4);
    expect(errorsOf(records)).toEqual([
      [2, 3, 'not valid JSON (character 75 of the record): Expected double-quoted property name'],
      [3, 4, 'not valid JSON (character 21 of the record): Expected double-quoted property name'],
    ]);
  });

  it('fixtures/broken/bad-line.ndjson: the unterminated line is an error record; the blank line is skipped', async () => {
    const { records } = await readAll({ path: 'fixtures/broken/bad-line.ndjson' });
    expect(records.map((r) => r.line)).toEqual([1, 2, 4]);
    expect(errorsOf(records)).toEqual([
      [2, 2, "not valid JSON (character 69 of the record): Expected ',' or '}' after property value"],
    ]);
  });

  it.each([
    [
      'fixtures/broken/unclosed-quote.csv',
      1,
      'input-csv',
      'fixtures/broken/unclosed-quote.csv line 3: a quoted value is never closed (the file ends inside it)',
    ],
    [
      'fixtures/broken/content-after-array.json',
      1,
      'input-json',
      'fixtures/broken/content-after-array.json line 2: unexpected content after the end of the array',
    ],
    [
      'fixtures/broken/truncated.csv.gz',
      undefined,
      'input-gzip',
      'fixtures/broken/truncated.csv.gz: the gzip data ends early (truncated download?)',
    ],
  ])('%s: the records before the break, then an InputError', async (path, before, code, message) => {
    const { records, error } = await readAll({ path });
    if (before !== undefined) expect(records).toHaveLength(before);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code, message });
  });

  it('fixtures/broken/not-gzip.csv.gz: refused when opened', async () => {
    await expect(readAll({ path: 'fixtures/broken/not-gzip.csv.gz' })).rejects.toMatchObject({
      code: 'input-gzip',
      message: 'fixtures/broken/not-gzip.csv.gz: is not gzip data, although its name ends in .gz',
    });
  });

  it('fixtures/members-excel-semicolon.csv (BOM, CRLF, ";"): read like members.csv', async () => {
    const [excel, plain] = await Promise.all([
      readAll({ path: 'fixtures/members-excel-semicolon.csv' }),
      readAll({ path: 'fixtures/members.csv' }),
    ]);
    expect(excel.source.delimiter).toBe(';');
    expect(excel.source.headers).toEqual(plain.source.headers);
    expect(excel.records).toEqual(plain.records.slice(0, 5));
  });
});
