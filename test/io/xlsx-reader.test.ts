/**
 * .xlsx input: streamed in place (yauzl + saxes), first visible sheet or --sheet, spreadsheet row numbers, cells as a
 * CSV would hold them; values the file does not hold are refused. Workbooks are written with exceljs, or built by
 * hand (xlsx-helpers.ts) for what exceljs never writes.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { openInputBytes } from '../../src/io/input-bytes.js';
import { openRecordSource } from '../../src/io/open-source.js';
import { openWorkbookZip } from '../../src/io/xlsx/workbook-zip.js';
import { readAll, stdinOf, tempDir } from './reader-helpers.js';
import { type BookSpec, sheetXml, workbookOf, zipOf } from './xlsx-helpers.js';

const dir = tempDir('xlsx');
afterAll(() => dir.remove());

async function workbook(name: string, sheets: Record<string, unknown[][]>): Promise<string> {
  const book = new ExcelJS.Workbook();
  for (const [sheet, rows] of Object.entries(sheets)) {
    const ws = book.addWorksheet(sheet);
    for (const row of rows) ws.addRow(row);
  }
  const path = dir.path(name);
  await book.xlsx.writeFile(path);
  return path;
}

const HEADER = ['Customer Id', 'Phone', 'Active', 'Created', 'Born', 'Score', 'Note'];

describe('xlsx reader', () => {
  it('reads the first sheet: row numbers as lines, dates, booleans and numbers as a CSV export would hold them', async () => {
    const path = await workbook('customers.xlsx', {
      Customers: [
        HEADER,
        [
          'C-1',
          4791234567,
          true,
          new Date(Date.UTC(2023, 0, 5, 10, 22)),
          new Date(Date.UTC(1984, 6, 19)),
          0.1 + 0.2,
          { richText: [{ text: 'called ' }, { text: 'twice' }] },
        ],
        [],
        [
          'C-2',
          '+47 912 34 568',
          false,
          new Date(Date.UTC(2023, 2, 12, 2, 30)),
          null,
          { formula: '1+1', result: 2 },
          null,
        ],
      ],
      Other: [['x'], ['y']],
    });
    const read = await readAll({ path });
    expect(read.source.format).toBe('xlsx');
    expect(read.source.headers).toEqual(HEADER);
    expect(read.records.map((r) => [r.record, r.line])).toEqual([
      [1, 2],
      [2, 4],
    ]);
    expect(read.records.map((r) => r.raw)).toEqual([
      ['C-1', '4791234567', 'true', '2023-01-05T10:22:00', '1984-07-19', '0.3', 'called twice'],
      ['C-2', '+47 912 34 568', 'false', '2023-03-12T02:30:00', '', '2', ''],
    ]);
  });

  it('--sheet NAME reads that sheet; an unknown name lists the sheets', async () => {
    const path = await workbook('two.xlsx', { First: [['a'], ['1']], Members: [['memberId'], ['m-9']] });
    expect((await readAll({ path, sheet: 'Members' })).records.map((r) => r.raw)).toEqual([['m-9']]);
    const error = await readAll({ path, sheet: 'Member' }).then(
      () => undefined,
      (e: unknown) => e as InputError,
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error!.message).toBe(`${path}: no sheet named "Member"`);
    expect(error!.hint).toBe('Its sheets: "First", "Members"; choose one with --sheet NAME.');
    const cased = await readAll({ path, sheet: 'members ' }).then(
      () => undefined,
      (e: unknown) => e as InputError,
    );
    expect(cased!.message).toBe(`${path}: no sheet named "members " (did you mean "Members"?)`);
    const csvSheet = await readAll({ path: dir.write('a.csv', 'a\n1\n'), sheet: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(csvSheet).toBeInstanceOf(UsageError);
  });

  it("maps like a CSV file: a date cell read in the mapping's zone, a phone stored as a number keeps its digits", async () => {
    const path = await workbook('mapped.xlsx', {
      Sheet1: [
        HEADER,
        ['C-1', 4791234567, true, new Date(Date.UTC(2023, 0, 5, 10, 22)), new Date(Date.UTC(1984, 6, 19)), 4, 'x'],
      ],
    });
    const read = await readAll({ path });
    const mapping = parseMapping(
      {
        columns: {
          'Customer Id': 'memberId',
          Phone: { field: 'phone', convert: 'e164', defaultRegion: 'NO' },
          Active: 'isActive',
          Created: { field: 'createdAt', timeZone: 'Europe/Oslo' },
          Born: 'birthdate',
          Score: { field: 'customProperties.score', type: 'number' },
          Note: null,
        },
      },
      'm.json',
    );
    const mapper = createRecordMapper('xlsx', read.source.headers, { file: path, mapping });
    const c = mapper.toCandidate(read.records[0]!);
    expect(c.valid && c.item).toEqual({
      memberId: 'C-1',
      phone: '+4791234567',
      isActive: true,
      createdAt: '2023-01-05T09:22:00.000Z',
      birthdate: '1984-07-19T00:00:00.000Z',
      customProperties: { score: 4 },
    });
  });

  it('a file that is not a workbook is an InputError naming it', async () => {
    const path = dir.write('fake.xlsx', Buffer.from([0x01, 0x02, 0x03, 0x04, 0x00, 0xff]));
    const error = await readAll({ path }).then(
      () => undefined,
      (e: unknown) => e as InputError,
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error!.message).toContain('not a readable Excel workbook');
  });

  it('text under a workbook\'s name (a CSV, Excel\'s UTF-16 "Unicode text") is named as text, with the flag that reads it', async () => {
    const csv = dir.write('csv.xlsx', 'memberId\nm-1\n');
    const error = await readAll({ path: csv }).then(
      () => undefined,
      (e: unknown) => e as InputError,
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error!.message).toBe(`${csv} is text, not an Excel workbook (.xlsx)`);
    expect(error!.hint).toContain('--format csv');
    const utf16 = dir.write(
      'unicode.xlsx',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('memberId\tisActive\r\n', 'utf16le')]),
    );
    const named = await readAll({ path: utf16 }).then(
      () => undefined,
      (e: unknown) => e as InputError,
    );
    expect(named!.message).toBe(`${utf16} is UTF-16 text, not an Excel workbook (.xlsx)`);
  });
});

const book = (name: string, spec: BookSpec | Buffer) =>
  dir.write(name, Buffer.isBuffer(spec) ? spec : workbookOf(spec));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as InputError,
  );
/** The error that ended reading, whether it came at opening or mid-sheet. */
async function refusal(path: string, sheet?: string): Promise<InputError> {
  let error: unknown;
  try {
    const read = await readAll({ path, sheet });
    error = read.error;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}
const raws = async (path: string, sheet?: string) => (await readAll({ path, sheet })).records.map((r) => r.raw);
const HEAD =
  '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>value</t></is></c></row>';
const row = (n: number, cell: string) =>
  `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>m-${n}</t></is></c>${cell}</row>`;

describe('xlsx reader: values as written, or refused', () => {
  it('a formula cell gives its saved value; one with none makes its record invalid, naming the cell', async () => {
    const path = book('formulas.xlsx', {
      sheets: [
        {
          name: 'S',
          rows:
            HEAD +
            row(2, '<c r="B2"><f>1+1</f><v>2</v></c>') +
            row(3, '<c r="B3" t="str"><f>A3&amp;"x"</f><v>m-3x</v></c>') +
            row(4, '<c r="B4" t="str"><f>""</f><v></v></c>') +
            row(5, '<c r="B5" t="b"><f>TRUE()</f><v>1</v></c>') +
            row(7, '<c r="B7"><f>A7&amp;"x"</f></c>'),
        },
      ],
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => [r.line, r.raw, r.error?.message])).toEqual([
      [2, ['m-2', '2'], undefined],
      [3, ['m-3', 'm-3x'], undefined],
      [4, ['m-4', ''], undefined],
      [5, ['m-5', 'true'], undefined],
      [7, ['m-7', ''], 'cell B7 is a formula with no saved value'],
    ]);
    expect(read.records[4]!.error!.hint).toContain('open and save it in Excel');
    expect(JSON.stringify(read.records)).not.toContain('[object Object]');
  });

  it('an exceljs formula written without a result is invalid, never "[object Object]"', async () => {
    const path = await workbook('exceljs-formula.xlsx', {
      S: [
        ['id', 'firstName'],
        ['m-1', { formula: 'A2&"x"' }],
      ],
    });
    const [record] = (await readAll({ path })).records;
    expect(record!.raw).toEqual(['m-1', '']);
    expect(record!.error?.message).toBe('cell B2 is a formula with no saved value');
  });

  it('a shared string index past the end of the table refuses the file, naming the sheet and cell', async () => {
    const path = book('truncated.xlsx', {
      sheets: [
        {
          name: 'Members',
          rows: HEAD + row(2, '<c r="B2" t="s"><v>0</v></c>') + row(3, '<c r="B3" t="s"><v>5</v></c>'),
        },
      ],
      strings: ['<t>kept</t>'],
    });
    const error = await refusal(path);
    expect(error.message).toBe(
      `${path}: sheet "Members" cell B3 refers to shared string 5, but the workbook's table holds 1`,
    );
    expect(error.category).toBe('usage');
    const none = book('no-strings.xlsx', {
      sheets: [{ name: 'S', rows: HEAD + row(2, '<c r="B2" t="s"><v>0</v></c>') }],
    });
    expect((await refusal(none)).message).toContain(
      "cell B2 refers to shared string 0, but the workbook's table holds 0",
    );
  });

  it('a shared string index not written in decimal digits (empty, 0x1, 1e0, " 2", 1.0) refuses the file, naming the cell', async () => {
    for (const [i, index] of ['', '0x1', '1e0', ' 2', '1.0', '-0'].entries()) {
      const path = book(`bad-index-${i}.xlsx`, {
        sheets: [
          {
            name: 'Members',
            rows: HEAD + row(2, '<c r="B2" t="s"><v>1</v></c>') + row(3, `<c r="B3" t="s"><v>${index}</v></c>`),
          },
        ],
        strings: ['<t>zero</t>', '<t>one</t>', '<t>two</t>'],
      });
      const error = await refusal(path);
      expect(error.message).toBe(
        `${path}: sheet "Members" cell B3 holds "${index}" where a shared string index belongs`,
      );
      expect(error.hint).toContain('damaged');
    }
  });

  it('a strict-OOXML date cell (t="d") is read only when every part is in range: 10:60:00 is no time', async () => {
    const cells = [
      '10:60:00',
      '24:00:00',
      '2023-02-29',
      '2023-01-05T10:22:60',
      '2023-01-05T25:00:00',
      '2023-01-05T10:22:00.1234',
      '2023-01-05T10:22:00.5000',
      '2023-01-05T10:22:00Z',
      '23:59:59',
      '0050-01-01',
    ];
    const path = book('iso-dates.xlsx', {
      sheets: [
        { name: 'S', rows: HEAD + cells.map((v, i) => row(i + 2, `<c r="B${i + 2}" t="d"><v>${v}</v></c>`)).join('') },
      ],
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => (r.error ? r.error.message : (r.raw as string[])[1]))).toEqual([
      'cell B2 holds "10:60:00", not a date',
      'cell B3 holds "24:00:00", not a date',
      'cell B4 holds "2023-02-29", not a date',
      'cell B5 holds "2023-01-05T10:22:60", not a date',
      'cell B6 holds "2023-01-05T25:00:00", not a date',
      'cell B7 holds "2023-01-05T10:22:00.1234", not a date',
      '2023-01-05T10:22:00.500',
      '2023-01-05T10:22:00',
      '23:59:59',
      'cell B11 holds "0050-01-01", not a date',
    ]);
  });

  it('an Excel error cell (#N/A, #REF!, #DIV/0!) makes its record invalid, naming the cell and the error', async () => {
    const path = book('errors.xlsx', {
      sheets: [
        {
          name: 'S',
          rows:
            HEAD +
            row(2, '<c r="B2" t="e"><v>#N/A</v></c>') +
            row(3, '<c r="B3" t="e"><f>1/0</f><v>#DIV/0!</v></c>') +
            '<row r="4"><c r="A4" t="e"><v>#NAME?</v></c><c r="B4" t="e"><f>#REF!</f><v>#REF!</v></c></row>' +
            row(5, '<c r="B5"><v>5</v></c>'),
        },
      ],
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => r.error?.message)).toEqual([
      'cell B2 holds the error #N/A',
      'cell B3 holds the error #DIV/0!',
      'cell A4 holds the error #NAME? (and 1 more such cell)',
      undefined,
    ]);
    expect(read.records[0]!.raw).toEqual(['m-2', '#N/A']);
  });

  it('numbers: the digits the file holds, 15 significant as Excel shows; a longer whole number is refused, never padded with invented digits', async () => {
    const cells = [
      '12345678901234567000',
      '1.23456789012345E+19',
      '4791234567',
      '0.30000000000000004',
      '123456789012345',
      '1234567890123456.7',
      '-1.5E-3',
      '1E+21',
      '9007199254740993',
    ];
    const path = book('long-numbers.xlsx', {
      sheets: [
        { name: 'S', rows: HEAD + cells.map((v, i) => row(i + 2, `<c r="B${i + 2}"><v>${v}</v></c>`)).join('') },
      ],
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => (r.error ? r.error.message : (r.raw as string[])[1]))).toEqual([
      'cell B2 holds the number 12345678901234567000, 17 digits long: Excel keeps and shows only 15, so its last digits are not known',
      '12345678901234500000',
      '4791234567',
      '0.3',
      '123456789012345',
      'cell B7 holds the number 1234567890123456.7, 16 digits long: Excel keeps and shows only 15, so its last digits are not known',
      '-0.0015',
      '1000000000000000000000',
      'cell B10 holds the number 9007199254740993, 16 digits long: Excel keeps and shows only 15, so its last digits are not known',
    ]);
    expect(read.records[0]!.error!.hint).toContain('stored as text');
    expect(JSON.stringify(read.records)).not.toContain('12345678901234567168');
  });

  it('a number cell in anything but XML Schema double syntax (hex, spaces, empty) makes its record invalid, naming the cell', async () => {
    const cells = ['0x10', ' 2', '', '1,5', 'INF', '+7', '5.', '.5'];
    const path = book('number-syntax.xlsx', {
      sheets: [
        { name: 'S', rows: HEAD + cells.map((v, i) => row(i + 2, `<c r="B${i + 2}"><v>${v}</v></c>`)).join('') },
      ],
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => (r.error ? r.error.message : (r.raw as string[])[1]))).toEqual([
      'cell B2 holds "0x10", not a number',
      'cell B3 holds " 2", not a number',
      'cell B4 holds "", not a number',
      'cell B5 holds "1,5", not a number',
      'cell B6 holds "INF", not a number',
      '7',
      '5',
      '0.5',
    ]);
  });

  it('1900 dates: serials 1–59 are the days Excel shows, serial 60 (29 February 1900, never a day) is refused; a time alone stays a time', async () => {
    const cells = [1, 59, 60, 61, 45000.4319444444, 0.5, -1, 3000000];
    const path = book('dates-1900.xlsx', {
      sheets: [
        { name: 'S', rows: HEAD + cells.map((v, i) => row(i + 2, `<c r="B${i + 2}" s="1"><v>${v}</v></c>`)).join('') },
      ],
      styles: { cellFormats: [0, 14] },
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => (r.error ? r.error.message : (r.raw as string[])[1]))).toEqual([
      '1900-01-01',
      '1900-02-28',
      'cell B4 holds 60 in a date format, 29 February 1900, a day that did not exist (Excel counts it)',
      '1900-03-01',
      '2023-03-15T10:22:00',
      '12:00:00',
      'cell B8 holds -1 in a date format, which is no date',
      'cell B9 holds 3000000 in a date format, past the year 9999',
    ]);
  });

  it('the 1904 date system (workbookPr date1904) counts from 1 January 1904', async () => {
    const path = book('dates-1904.xlsx', {
      sheets: [
        {
          name: 'S',
          rows: HEAD + row(2, '<c r="B2" s="1"><v>0</v></c>') + row(3, '<c r="B3" s="1"><v>43538.5</v></c>'),
        },
      ],
      styles: { cellFormats: [0, 22] },
      date1904: true,
    });
    expect(await raws(path)).toEqual([
      ['m-2', '1904-01-01'],
      ['m-3', '2023-03-15T12:00:00'],
    ]);
  });

  it('which numbers are dates is told by the cell format: built-in date formats and custom ones, not escaped letters', async () => {
    const path = book('formats.xlsx', {
      sheets: [
        {
          name: 'S',
          rows:
            HEAD +
            row(2, '<c r="B2" s="1"><v>45000</v></c>') +
            row(3, '<c r="B3" s="2"><v>45000</v></c>') +
            row(4, '<c r="B4" s="3"><v>45000</v></c>') +
            row(5, '<c r="B5" s="4"><v>45000</v></c>') +
            row(6, '<c r="B6" s="9"><v>45000</v></c>') +
            row(7, '<c r="B7" t="d"><v>2023-01-05T10:22:00</v></c>'),
        },
      ],
      styles: {
        cellFormats: [0, 164, 165, 166, 47],
        formats: { 164: 'dd.mm.yyyy', 165: '0.0 \\k\\m', 166: '#,##0 "days"' },
      },
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => r.error?.message ?? r.raw)).toEqual([
      ['m-2', '2023-03-15'],
      ['m-3', '45000'],
      ['m-4', '45000'],
      // built-in 47 is mm:ss.0, a time alone: a serial of days is not what it shows
      'cell B5 holds 45000 in a time-of-day format, which hides its date',
      ['m-6', '45000'],
      ['m-7', '2023-01-05T10:22:00'],
    ]);
  });

  it('fixed-width code formats (00000, 000-00-0000) show their zeros as Excel does; other formats read the number', async () => {
    const cells: [string, number][] = [
      ['7030', 1],
      ['123456789', 2],
      ['1234567890', 2],
      ['-42', 1],
      ['7030.5', 1],
      ['1234.5', 3],
      ['0.125', 4],
      ['7030', 5],
      ['30', 6],
      ['7', 7],
    ];
    const path = book('codes.xlsx', {
      sheets: [
        {
          name: 'S',
          rows: HEAD + cells.map(([v, s], i) => row(i + 2, `<c r="B${i + 2}" s="${s}"><v>${v}</v></c>`)).join(''),
        },
      ],
      styles: {
        cellFormats: [0, 164, 165, 4, 10, 166, 167, 1],
        formats: { 164: '00000', 165: '000-00-0000', 166: '"("000") "000\\.0000', 167: '0" days"' },
      },
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => r.error?.message ?? (r.raw as string[])[1])).toEqual([
      '07030',
      '123-45-6789',
      '1234-56-7890',
      '-00042',
      'cell B6 holds 7030.5 in the format 00000, which shows it rounded to a whole number',
      '1234.5',
      '0.125',
      '(000) 000.7030',
      '30',
      '7',
    ]);
  });

  it('time-only and duration formats are not dates: a time of day below one day, a duration refused naming the cell', async () => {
    const cells: [string, number][] = [
      ['1.25', 1],
      ['0.0208333333333333', 2],
      ['0.5', 3],
      ['29.5', 3],
      ['0.0034722222222222', 4],
      ['30', 4],
      ['0.5', 5],
    ];
    const path = book('durations.xlsx', {
      sheets: [
        {
          name: 'S',
          rows: HEAD + cells.map(([v, s], i) => row(i + 2, `<c r="B${i + 2}" s="${s}"><v>${v}</v></c>`)).join(''),
        },
      ],
      styles: {
        cellFormats: [0, 164, 165, 166, 45, 46],
        formats: { 164: '[h]:mm', 165: '[mm]:ss', 166: 'hh:mm AM/PM' },
      },
    });
    const read = await readAll({ path });
    expect(read.records.map((r) => r.error?.message ?? (r.raw as string[])[1])).toEqual([
      'cell B2 holds 1.25 in the duration format [h]:mm, which is no date or time of day',
      'cell B3 holds 0.0208333333333333 in the duration format [mm]:ss, which is no date or time of day',
      '12:00:00',
      'cell B5 holds 29.5 in a time-of-day format, which hides its date',
      '00:05:00',
      'cell B7 holds 30 in a time-of-day format, which hides its date',
      'cell B8 holds 0.5 in the duration format [h]:mm:ss, which is no date or time of day',
    ]);
    expect(read.records[0]!.error!.hint).toContain('no durations');
    expect(JSON.stringify(read.records)).not.toContain('1900-');
  });

  it('inline strings, rich text runs, phonetic runs, xml:space, escapes, prefixes, sparse cells and rows without "r"', async () => {
    const x = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const sheet = `<?xml version="1.0"?><x:worksheet ${x}><x:sheetData>
      <x:row><x:c t="inlineStr"><x:is><x:t>id</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>a</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>b</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>c</x:t></x:is></x:c></x:row>
      <x:row><x:c t="s"><x:v>0</x:v></x:c><x:c r="C2" t="s"><x:v>1</x:v></x:c></x:row>
      <x:row r="5"><x:c r="A5" t="inlineStr"><x:is><x:r><x:t>called </x:t></x:r><x:r><x:rPr><x:b/></x:rPr><x:t>twice</x:t></x:r></x:is></x:c><x:c r="D5" t="s"><x:v>2</x:v></x:c></x:row>
      <x:row/>
      <x:row><x:c t="b"><x:v>0</x:v></x:c></x:row>
    </x:sheetData></x:worksheet>`;
    const path = book('shapes.xlsx', {
      sheets: [{ name: 'S', rows: sheet }],
      strings: [
        '<t xml:space="preserve">  two spaces </t>',
        '<r><t>東京</t></r><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/>',
        '<t>line_x000D_\nbreak _x005F_x000D_</t>',
      ],
    });
    const read = await readAll({ path });
    expect(read.source.headers).toEqual(['id', 'a', 'b', 'c']);
    expect(read.records.map((r) => [r.line, r.raw])).toEqual([
      [2, ['  two spaces ', '', '東京', '']],
      [5, ['called twice', '', '', 'line\r\nbreak _x000D_']],
      [7, ['false', '', '', '']],
    ]);
  });

  it("the default sheet is the first visible tab (in the workbook's order, not the parts'); --sheet reads a hidden one", async () => {
    const path = book('tabs.xlsx', {
      sheets: [
        { name: 'Secret', rows: HEAD + row(2, ''), state: 'hidden' },
        { name: 'Members', rows: HEAD + row(3, ''), part: 'worksheets/sheet9.xml' },
        { name: 'Other', rows: HEAD + row(4, ''), part: 'worksheets/sheet0.xml' },
      ],
    });
    expect(await raws(path)).toEqual([['m-3', '']]);
    expect(await raws(path, 'Secret')).toEqual([['m-2', '']]);
    expect((await failure(readAll({ path, sheet: 'x' })))!.hint).toBe(
      'Its sheets: "Secret" (hidden), "Members", "Other"; choose one with --sheet NAME.',
    );
  });
});

describe('xlsx reader: damaged and hostile files', () => {
  const plain = (rows = HEAD + row(2, '')): BookSpec => ({ sheets: [{ name: 'S', rows }] });

  it('a part that declares more than its bound is refused before it is inflated (a zip bomb)', async () => {
    const path = book('bomb.xlsx', {
      ...plain(),
      strings: [],
      extra: [{ name: 'xl/sharedStrings.xml', data: '<sst/>', declaredSize: 300 * 1024 * 1024 }],
    });
    const error = await refusal(path);
    expect(error.message).toBe(
      `${path}: its part xl/sharedStrings.xml unzips to 300 MB, over the 256 MB memberctl reads from one part`,
    );
    expect(error.hint).toContain('zip bomb');
  });

  it('a part that inflates to more than it declares is refused', async () => {
    const big = `<sst>${'<si><t>x</t></si>'.repeat(50_000)}</sst>`;
    const path = book('liar.xlsx', {
      ...plain(),
      strings: [],
      extra: [{ name: 'xl/sharedStrings.xml', data: big, declaredSize: 100 }],
    });
    expect((await refusal(path)).message).toMatch(
      /not a readable Excel workbook \(xl\/sharedStrings\.xml: too many bytes/,
    );
  });

  it('a DOCTYPE (external entities, entity expansion) is refused, and nothing it names is read', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE w [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><worksheet><sheetData>${HEAD}<row r="2"><c r="A2" t="inlineStr"><is><t>&xxe;</t></is></c></row></sheetData></worksheet>`;
    const laughs = `<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><sst><si><t>&c;</t></si></sst>`;
    const a = book('xxe.xlsx', plain(xxe));
    expect((await refusal(a)).message).toBe(
      `${a}: not a readable Excel workbook (its part xl/worksheets/sheet1.xml declares a DOCTYPE, which no Excel part has)`,
    );
    const b = book('laughs.xlsx', { ...plain(), strings: [], extra: [{ name: 'xl/sharedStrings.xml', data: laughs }] });
    expect((await refusal(b)).message).toContain('its part xl/sharedStrings.xml declares a DOCTYPE');
  });

  it('paths: a part named outside the zip is refused, a relationship leaving the package finds no part', async () => {
    const evil = book('evil-name.xlsx', { ...plain(), extra: [{ name: '../../evil.xml', data: '<x/>' }] });
    expect((await refusal(evil)).message).toMatch(
      /not a readable Excel workbook \(invalid relative path: \.\.\/\.\.\/evil\.xml\)/,
    );
    const outside = book('outside.xlsx', {
      sheets: [{ name: 'S', rows: HEAD, part: '../../../etc/passwd' }],
      omit: ['xl/../../../etc/passwd'],
    });
    expect((await refusal(outside)).message).toBe(
      `${outside}: not a readable Excel workbook (the part of sheet "S" is missing)`,
    );
  });

  it('missing parts, two parts of one name, rows and cells out of order are refused, naming what', async () => {
    const noBook = book('no-book.xlsx', { ...plain(), omit: ['xl/workbook.xml'] });
    expect((await refusal(noBook)).message).toBe(
      `${noBook}: not a readable Excel workbook (its zip has no xl/workbook.xml part)`,
    );
    const noSheet = book('no-sheet.xlsx', { ...plain(), omit: ['xl/worksheets/sheet1.xml'] });
    expect((await refusal(noSheet)).message).toContain('(the part of sheet "S" is missing)');
    const twice = book('twice.xlsx', {
      ...plain(),
      extra: [{ name: 'xl/Worksheets/sheet1.xml', data: sheetXml(HEAD) }],
    });
    expect((await refusal(twice)).message).toContain('(its zip holds two parts named xl/Worksheets/sheet1.xml)');
    const rows = book('rows.xlsx', plain(HEAD + row(5, '') + row(3, '')));
    expect((await refusal(rows)).message).toBe(`${rows}: sheet "S" has row 3 after row 5`);
    const cells = book('cells.xlsx', plain(`${HEAD}<row r="2"><c r="B2"><v>1</v></c><c r="A2"><v>2</v></c></row>`));
    expect((await refusal(cells)).message).toBe(`${cells}: sheet "S" row 2 has cell A2 twice or out of order`);
    const header = book('header.xlsx', plain('<row r="1"><c r="A1" t="e"><v>#REF!</v></c></row>'));
    expect((await refusal(header)).message).toBe(`${header}: sheet "S" header row: cell A1 holds the error #REF!`);
  });

  it('an .ods or .xls under an .xlsx name is named for what it is', async () => {
    const ods = book(
      'calc.xlsx',
      zipOf([
        { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', store: true },
        { name: 'content.xml', data: '<office:document-content/>' },
      ]),
    );
    expect((await refusal(ods)).message).toBe(
      `${ods} is an OpenDocument spreadsheet (.ods), which memberctl does not read`,
    );
    const xls = book('old.xlsx', Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(600)]));
    expect((await refusal(xls)).message).toBe(
      `${xls} is an Excel 97–2003 workbook (.xls), which memberctl does not read`,
    );
  });

  it('standard input is held in memory, up to a bound; nothing is written to the temporary directory', async () => {
    const bytes = workbookOf(plain(HEAD + row(2, '<c r="B2" t="s"><v>0</v></c>')));
    const noStrings = (await failure(readAll({ path: '-', format: 'xlsx', stdin: stdinOf(bytes, 7) })))!;
    expect(noStrings.message).toBe(
      'stdin: sheet "S" cell B2 refers to shared string 0, but the workbook\'s table holds 0',
    );
    const tmp = tempDir('xlsx-tmp');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp.path('');
    try {
      const good = workbookOf({ sheets: [{ name: 'S', rows: HEAD + row(2, '<c r="B2"><v>7</v></c>') }] });
      const read = await readAll({ path: '-', format: 'xlsx', stdin: stdinOf(good, 100) });
      expect(read.records.map((r) => r.raw)).toEqual([['m-2', '7']]);
      expect(await raws(book('in-place.xlsx', good))).toEqual([['m-2', '7']]);
      expect(readdirSync(tmp.path(''))).toEqual([]);
    } finally {
      // (assigning undefined would store the string "undefined": every later tmpdir() in this worker would break)
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      tmp.remove();
    }
    const raw = await openInputBytes({ path: '-', file: 'stdin', gzip: false, stdin: stdinOf(bytes, 100) });
    const capped = await failure(openWorkbookZip(raw, 'stdin', '-', 1000));
    expect(capped!.message).toBe(
      'stdin: a workbook read from standard input, a pipe or gzip is held in memory, up to 1000 bytes; this one is larger',
    );
  });

  it.runIf(process.platform !== 'win32')(
    'a FIFO whose writer is gone is held in memory, never opened again',
    async () => {
      const fifo = dir.path('book.fifo');
      execFileSync('mkfifo', [fifo]);
      const reading = readAll({ path: fifo, format: 'xlsx' });
      const writer = await open(fifo, 'w');
      await writer.write(workbookOf(plain(HEAD + row(2, '<c r="B2"><v>7</v></c>'))));
      await writer.close();
      expect((await reading).records.map((r) => r.raw)).toEqual([['m-2', '7']]);
    },
  );

  it('closing the source mid-sheet releases the file', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => row(i + 2, `<c r="B${i + 2}"><v>${i}</v></c>`)).join('');
    const path = book('long.xlsx', plain(HEAD + rows));
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    const source = await openRecordSource({ path });
    expect(source.totalBytes).toBeGreaterThan(0);
    let seen = 0;
    for await (const _ of source) if (++seen === 10) break;
    await source.close();
    expect(seen).toBe(10);
    await vi.waitFor(() => expect(fds()).toBe(before));
  });
});
