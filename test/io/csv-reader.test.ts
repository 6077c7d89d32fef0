import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readAll, readCsvText, stdinOf, tempDir } from './reader-helpers.js';

const dir = tempDir('csv');
afterAll(() => dir.remove());

const cellsAndLines = (records: { line: number; raw: unknown }[]) => records.map((r) => [r.line, r.raw]);

describe('CSV reader', () => {
  it('reads UTF-8 with a BOM and CRLF line ends; the header is line 1', async () => {
    const { source, records } = await readCsvText('\ufeffmemberId,city\r\nm-1,Malmö\r\nm-2,Zürich\r\n');
    expect(source.headers).toEqual(['memberId', 'city']);
    expect(records).toEqual([
      { record: 1, line: 2, raw: ['m-1', 'Malmö'] },
      { record: 2, line: 3, raw: ['m-2', 'Zürich'] },
    ]);
  });

  it('keeps quoted delimiters, doubled quotes and newlines in values, and counts the lines they span', async () => {
    const text = 'memberId,note\n"m-1","a, b"\nm-2,"line 1\nline 2\r\nline 3"\nm-3,"say ""hi"""\nm-4,5" disk\n';
    for (const chunkSize of [1, 3, 1 << 16]) {
      const { records } = await readCsvText(text, chunkSize);
      expect(cellsAndLines(records)).toEqual([
        [2, ['m-1', 'a, b']],
        [3, ['m-2', 'line 1\nline 2\r\nline 3']],
        [6, ['m-3', 'say "hi"']],
        [7, ['m-4', '5" disk']],
      ]);
    }
  });

  it.each([
    [',', 'comma'],
    [';', 'semicolon'],
    ['\t', 'tab'],
    ['|', 'pipe'],
  ])('detects %j (%s) from the header line', async (d) => {
    const text = `memberId${d}email${d}note\nm-1${d}a@example.com${d}"x${d}y"\n`;
    const { source, records } = await readCsvText(text);
    expect(source.delimiter).toBe(d);
    expect(records[0]!.raw).toEqual(['m-1', 'a@example.com', `x${d}y`]);
  });

  it('detection counts delimiters outside quotes only; --delimiter overrides it ("tab" spelled out too)', async () => {
    expect((await readCsvText('"a;b;c",d\n1,2\n')).source.delimiter).toBe(',');
    const given = await readCsvText('a;b,c;d\n1;2,3;4\n', undefined, ',');
    expect(given.source.headers).toEqual(['a;b', 'c;d']);
    expect((await readCsvText('a\tb\n1\t2\n', undefined, 'tab')).records[0]!.raw).toEqual(['1', '2']);
    await expect(readCsvText('a,b\n', undefined, ';;')).rejects.toMatchObject({ code: 'delimiter' });
  });

  it('ignores blank lines (between records, trailing, lines of spaces) but keeps counting them', async () => {
    const { records } = await readCsvText('\nmemberId,x\n\nm-1,a\r\n\r\n   \nm-2,b\n\n\n');
    expect(cellsAndLines(records)).toEqual([
      [4, ['m-1', 'a']],
      [7, ['m-2', 'b']],
    ]);
    expect(records.map((r) => r.record)).toEqual([1, 2]);
  });

  it('a row with more cells than the header is an error record; reading goes on', async () => {
    const { records } = await readAll({ path: 'fixtures/invalid/too-many-cells.csv' });
    expect(records.map((r) => [r.record, r.line, r.error?.message])).toEqual([
      [1, 2, undefined],
      [2, 3, 'the row has 4 cells but the header has 3 (cell 4 is "surplus")'],
      [3, 4, undefined],
    ]);
    expect(records[1]!.raw).toEqual(['m-2', 'true', '2024-01-05T09:00:00Z', 'surplus']);
    expect(records[1]!.error!.hint).toMatch(/quoted/);
  });

  it('a row with fewer cells than the header is an error record, its cells as read; empty surplus cells are dropped', async () => {
    const { records } = await readCsvText('a,b,c\n1\n1,2,3,,\n1,"x\ny"\n');
    expect(records.map((r) => [r.line, r.raw, r.error?.message, r.padded])).toEqual([
      [2, ['1'], 'the row has 1 cells but the header has 3', undefined],
      [3, ['1', '2', '3'], undefined, undefined],
      [4, ['1', 'x\ny'], 'the row has 2 cells but the header has 3', undefined],
    ]);
    expect(records[0]!.error!.hint).toMatch(/--pad-short-rows/);
  });

  it('--pad-short-rows: the missing trailing cells are empty and the row says it was padded; a long row is still refused', async () => {
    const text = 'a,b,c\n1\n1,2,3,,\n1,2,3,4\n';
    const { records } = await readAll({ path: '-', format: 'csv', stdin: stdinOf(text, 3), padShortRows: true });
    expect(records.map((r) => [r.raw, r.error?.message, r.padded])).toEqual([
      [['1', '', ''], undefined, true],
      [['1', '2', '3'], undefined, undefined],
      [['1', '2', '3', '4'], 'the row has 4 cells but the header has 3 (cell 4 is "4")', undefined],
    ]);
  });

  it('--pad-short-rows is refused for input that is not CSV', async () => {
    await expect(
      readAll({ path: '-', format: 'ndjson', stdin: stdinOf('{"a":1}\n'), padShortRows: true }),
    ).rejects.toMatchObject({
      code: 'csv-only-option',
      message: '--pad-short-rows applies to CSV input only (stdin is ndjson)',
    });
  });

  it('duplicate headers are an InputError naming them and their columns', async () => {
    const error = await readAll({ path: 'fixtures/invalid/duplicate-headers.csv' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      'fixtures/invalid/duplicate-headers.csv line 1: duplicate column "email" (columns 2 and 4)',
    );
    expect((error as InputError).category).toBe('usage');
  });

  it("Excel's sep= line is refused naming the delimiter it gives, never read as a header", async () => {
    const path = dir.write('excel-sep.csv', 'sep=;\r\nmemberId;isActive\r\nm-1;true\r\n');
    await expect(readAll({ path })).rejects.toMatchObject({
      code: 'input-csv-separator-line',
      line: 1,
      message: `${path} line 1: "sep=;" is the line Excel writes to name the delimiter, not a header`,
      hint: `Remove that line, then read the file with its delimiter: tail -n +2 ${path} > without-sep.csv, and --delimiter ';'`,
    });
    await expect(readCsvText('\ufeffsep=\t\nmemberId\tcity\n', 1)).rejects.toMatchObject({
      message: 'stdin line 1: "sep=\\t" is the line Excel writes to name the delimiter, not a header',
      hint: 'Remove that line before memberctl reads it (… | tail -n +2 | memberctl …), and pass --delimiter tab',
    });
    // a header that only starts so is a header
    expect((await readCsvText('sep=x,city\n1,Oslo\n')).source.headers).toEqual(['sep=x', 'city']);
  });

  it('an empty file is an InputError; a header-only file is 0 records with its headers', async () => {
    await expect(readAll({ path: 'fixtures/invalid/empty.csv' })).rejects.toMatchObject({
      code: 'input-empty',
      message: 'fixtures/invalid/empty.csv is empty',
    });
    await expect(readCsvText(' \r\n\n')).rejects.toMatchObject({ code: 'input-empty' });
    const { source, records } = await readAll({ path: 'fixtures/invalid/header-only.csv' });
    expect(source.headers).toEqual(['memberId', 'isActive', 'createdAt']);
    expect(records).toEqual([]);
  });

  it('invalid UTF-8 makes that record an error naming the line and byte, whatever the chunk boundaries', async () => {
    const good = Buffer.from('memberId,name\nm-1,Zoë\nm-2,');
    const text = Buffer.concat([good, Buffer.from([0x42, 0x6a, 0xf6, 0x72, 0x6e]), Buffer.from('\nm-3,会員\n')]);
    for (const chunkSize of [1, 2, 7, 1 << 16]) {
      const { records } = await readCsvText(text, chunkSize);
      expect(records.map((r) => [r.line, r.error?.message])).toEqual([
        [2, undefined],
        [3, 'not valid UTF-8 (byte 0xF6 on line 3)'],
        [4, undefined],
      ]);
      expect(records[2]!.raw).toEqual(['m-3', '会員']);
    }
  });

  it('a multi-byte character cut off by the end of the file is invalid UTF-8', async () => {
    const { records } = await readCsvText(Buffer.concat([Buffer.from('a\nx'), Buffer.from([0xe4, 0xbc])]));
    expect(records[0]!.error?.message).toBe('not valid UTF-8 (byte 0xE4 on line 2)');
  });

  it('invalid UTF-8 in the header is an InputError', async () => {
    await expect(readCsvText(Buffer.from([0x61, 0xff, 0x0a, 0x31, 0x0a]))).rejects.toMatchObject({
      code: 'input-encoding',
      line: 1,
    });
  });

  it('a quote never closed: the records before it, then an InputError naming the line it starts on', async () => {
    const { records, error } = await readCsvText('a,b\n1,2\n3,"never closed\n4,5\n');
    expect(records.map((r) => r.raw)).toEqual([['1', '2']]);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      'stdin line 3: a quoted value is never closed (the file ends inside it)',
    );
  });

  it('a 10 MB cell is read as a record (mapping reports it too long); a record over 16 MB is an InputError with its line', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const ok = await readAll({ path: dir.write('big.csv', `memberId,note\nm-1,${big}\nm-2,small\n`) });
    expect(ok.records.map((r) => [r.line, (r.raw as string[])[1]!.length])).toEqual([
      [2, big.length],
      [3, 5],
    ]);
    const huge = await readAll({ path: dir.write('huge.csv', `memberId,note\nm-1,ok\nm-2,"${big}${big}"\n`) });
    expect(huge.records).toHaveLength(1);
    expect((huge.error as InputError).message).toMatch(/^.*huge\.csv line 3: the record is larger than 16 MB/);
  });
});
