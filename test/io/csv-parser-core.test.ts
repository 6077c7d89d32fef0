/**
 * The CSV core as the reader drives it: a row of another width than the header (a trailing empty cell left out, a
 * line of spaces) is ours to judge (checkRowLength in csv-record-core.ts), so the core must not build an error for
 * it. csv-parse, the core before the scanner, built a CsvError per such row even when relaxed (a stack trace and a
 * JSON copy of the record): 200k rows with a trailing cell left out took 5.8 s to validate instead of 1.0 s, and
 * 2 MB of lines of spaces after a header 16 s.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCsvCore } from '../../src/io/csv-parser-core.js';
import { CsvRecordCore } from '../../src/io/csv-record-core.js';

afterEach(() => vi.restoreAllMocks());

describe('rows of another width than the header', () => {
  it('cost no error object, and still come out with their own cells and lines', () => {
    const stacks = vi.spyOn(Error, 'captureStackTrace');
    const rows = ['a,b,c,d'];
    for (let r = 1; r <= 300; r++) rows.push(r % 3 === 0 ? `x${r},y` : r % 3 === 1 ? '   ' : `x${r},y,z,w,`);
    for (const padShortRows of [false, true]) {
      const core = new CsvRecordCore('short.csv', ',', undefined, false, padShortRows);
      core.parse(Buffer.from(`${rows.join('\n')}\n`));
      core.end();
      const { records } = core.take();
      expect(stacks).not.toHaveBeenCalled();
      expect(core.headers).toEqual(['a', 'b', 'c', 'd']);
      expect(records).toHaveLength(200);
      expect(records[0]).toMatchObject({ record: 1, line: 3, raw: ['x2', 'y', 'z', 'w'] });
      // refused as read, or padded with --pad-short-rows
      if (padShortRows)
        expect(records[1]).toMatchObject({ record: 2, line: 4, raw: ['x3', 'y', '', ''], padded: true });
      else
        expect(records[1]).toMatchObject({
          record: 2,
          line: 4,
          raw: ['x3', 'y'],
          error: { message: 'the row has 2 cells but the header has 4' },
        });
      expect(records.filter((record) => record.error !== undefined)).toHaveLength(padShortRows ? 0 : 100);
    }
  });

  it('a broken file is still an error: a quote never closed', () => {
    const core = createCsvCore({ delimiter: ',', maxRecordSize: 1024 });
    const push = vi.fn();
    expect(core.parse(Buffer.from('a,b\n1,2\n3\n"4,5\n'), false, push)).toBeUndefined();
    expect(core.parse(undefined, true, push)?.code).toBe('CSV_QUOTE_NOT_CLOSED');
    expect(push.mock.calls.map(([cells]) => cells)).toEqual([['a', 'b'], ['1', '2'], ['3']]);
  });
});
