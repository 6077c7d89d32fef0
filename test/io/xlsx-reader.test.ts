/** .xlsx input: streamed through exceljs, first sheet or --sheet, spreadsheet row numbers, cells as a CSV would hold them. */
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { readAll, tempDir } from './reader-helpers.js';

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
