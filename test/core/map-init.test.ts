/** `map init`: a starter mapping that loads as it is and almost works. */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { initMapping } from '../../src/core/map-init/map-init.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { openRecordSource } from '../../src/io/open-source.js';
import ExcelJS from 'exceljs';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-mapinit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('map init', () => {
  it('guesses a field per header, null for the rest, a date format with a zone, values for a status, country conversion', async () => {
    const path = file(
      'export.csv',
      [
        'Customer Id,Full Name,E-mail Address,Mobile,Country,Status,Date of birth,Create Date,Lead Score',
        'C-1,Ann Berg,ann@example.com,+4791234567,Norway,Active,19-07-1984,2023-01-05 10:22,4',
        'C-2,Bo Li,bo@example.com,+4791234568,Sweden,lapsed,02-11-1991,2023-03-12 14:30,5',
        'C-3,Cy Do,cy@example.com,,Chile,on hold,13-12-1990,2023-03-13 09:00,',
      ].join('\n'),
    );
    const { mapping, notes } = await initMapping({ path }, 'Europe/Oslo');
    expect(mapping.columns).toEqual({
      'Customer Id': 'memberId',
      'Full Name': null,
      'E-mail Address': 'email',
      Mobile: 'phone',
      Country: { field: 'address.countryCode', convert: 'countryCode' },
      Status: { field: 'isActive', values: { active: true, lapsed: false, 'on hold': null } },
      'Date of birth': { field: 'birthdate', format: 'dd-MM-yyyy' },
      'Create Date': { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'Europe/Oslo' },
      'Lead Score': null,
    });
    expect(mapping.fields).toEqual({});
    expect(notes.join('\n')).toContain(
      '"Create Date" → createdAt: times without an offset; assumed "timeZone": "Europe/Oslo"',
    );
    expect(notes.join('\n')).toContain('say true or false for "on hold"');
    // it loads as it is, and reads the rows
    const mapper = createRecordMapper(
      'csv',
      [
        'Customer Id',
        'Full Name',
        'E-mail Address',
        'Mobile',
        'Country',
        'Status',
        'Date of birth',
        'Create Date',
        'Lead Score',
      ],
      { file: 'export.csv', mapping: parseMapping(mapping, 'm.json') },
    );
    const c = mapper.toCandidate({
      record: 1,
      line: 2,
      raw: [
        'C-1',
        'Ann Berg',
        'ann@example.com',
        '+4791234567',
        'Norway',
        'Active',
        '19-07-1984',
        '2023-01-05 10:22',
        '4',
      ],
    });
    expect(c.valid && c.item).toMatchObject({
      memberId: 'C-1',
      address: { countryCode: 'NO' },
      createdAt: '2023-01-05T09:22:00.000Z',
    });
  });

  it('a country column with names converts even when few of its first cells are known names (a cell that is no code fails anyway)', async () => {
    const path = file(
      'few-countries.csv',
      'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,Chile\nm-2,true,2024-01-01,Narnia\nm-3,true,2024-01-01,Atlantis\n',
    );
    const { mapping } = await initMapping({ path });
    expect(mapping.columns.Country).toEqual({ field: 'address.countryCode', convert: 'countryCode' });
    const codes = file(
      'codes.csv',
      'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,NO\nm-2,true,2024-01-01,se\n',
    );
    expect((await initMapping({ path: codes })).mapping.columns.Country).toBe('address.countryCode');
  });

  it('from standard input, the validate it advises reads standard input again (-, not "stdin")', async () => {
    const stdin = Readable.from(['memberId,isActive,createdAt\nm-1,true,2024-01-01\n']);
    const { validateCommand } = await initMapping({ path: '-', format: 'csv', stdin });
    expect(validateCommand).toBe('memberctl validate - --format csv');
  });

  it("local ISO date-times (a workbook's date cells) get a zone and no format", async () => {
    const path = file(
      'local.csv',
      'memberId,isActive,createdAt\nm-1,true,2023-01-05T10:22:00\nm-2,false,2024-01-01T00:00:00Z\n',
    );
    const { mapping } = await initMapping({ path }, 'Europe/Oslo');
    expect(mapping.columns.createdAt).toEqual({ field: 'createdAt', timeZone: 'Europe/Oslo' });
  });

  it('a placeholder for each required field no column gives; the mapping still loads', async () => {
    const path = file('people.csv', 'Name,Email,Updated\nAnn,ann@example.com,2024-01-01\n');
    const { mapping, notes } = await initMapping({ path });
    expect(Object.keys(mapping.fields)).toEqual(['memberId', 'isActive', 'createdAt']);
    expect(mapping.fields.isActive).toEqual({ value: true });
    expect(notes).toHaveLength(3);
    expect(notes[1]).toBe(
      'isActive: no column looks like it; fields["isActive"] says true for every member: map a status column instead if there is one',
    );
    const loaded = parseMapping(mapping, 'm.json');
    // the memberId placeholder names no column: validate stops before any row, with the closest headers
    expect(() =>
      createRecordMapper('csv', ['Name', 'Email', 'Updated'], { file: 'people.csv', mapping: loaded }),
    ).toThrow(/no column gives the required field memberId/);
  });

  it('JSON: dotted paths to the values of the first records', async () => {
    const path = file(
      'crm.ndjson',
      `${JSON.stringify({ id: 7, contact: { email: 'a@b.c', phones: ['+4791234567'], emails: [{ type: 'home', value: 'h@b.c' }] }, created: '2024-01-05T10:00:00Z', active: true })}\n`,
    );
    const { mapping, format } = await initMapping({ path });
    expect(format).toBe('ndjson');
    expect(mapping.columns).toEqual({
      id: 'memberId',
      'contact.phones.0': 'phone',
      'contact.emails.0.type': null,
      created: 'createdAt',
      active: 'isActive',
    });
    // two paths look like an e-mail: the first non-empty of them
    expect(mapping.fields).toEqual({ email: { firstOf: ['contact.email', 'contact.emails.0.value'] } });
    const mapper = createRecordMapper('ndjson', undefined, {
      file: 'crm.ndjson',
      mapping: parseMapping(mapping, 'm.json'),
    });
    const c = mapper.toCandidate({ record: 1, line: 1, raw: JSON.parse(readFileSync(path, 'utf8')) });
    expect(c.valid && c.item).toEqual({
      memberId: '7',
      email: 'a@b.c',
      phone: '+4791234567',
      createdAt: '2024-01-05T10:00:00Z',
      isActive: true,
    });
  });

  describe('a workbook', () => {
    /** A sheet as exports make them: Status words and an Active yes/no column; Joined holds real Excel dates and text dates. */
    async function workbook(name: string, joined: (string | Date)[]): Promise<string> {
      const book = new ExcelJS.Workbook();
      const sheet = book.addWorksheet('Members');
      sheet.addRow(['Member ID', 'Status', 'Active', 'Joined', 'Email']);
      joined.forEach((when, i) =>
        sheet.addRow([
          `M-${i + 1}`,
          i % 3 === 2 ? 'lapsed' : 'active',
          i % 2 === 0 ? 'yes' : 'no',
          when,
          `m${i + 1}@example.com`,
        ]),
      );
      const path = join(dir, name);
      await book.xlsx.writeFile(path);
      return path;
    }
    const utc = (...parts: [number, number, number, number?, number?]) =>
      new Date(Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0));

    async function validateWith(path: string, mapping: ReturnType<typeof parseMapping>) {
      const source = await openRecordSource({ path });
      const mapper = createRecordMapper('xlsx', source.headers, { file: path, mapping });
      const candidates = [];
      for await (const record of source) candidates.push(mapper.toCandidate(record));
      return candidates;
    }

    it('one column per field: "Active" (reads as it is) is mapped, "Status" (needs a values map) is null and noted with its rule', async () => {
      const path = await workbook('status-active.xlsx', [
        utc(2024, 1, 5, 10, 30),
        utc(2024, 1, 6),
        utc(2024, 1, 7, 8),
        utc(2024, 1, 8, 9, 15),
      ]);
      const { mapping, notes } = await initMapping({ path }, 'Europe/Oslo');
      expect(mapping.columns.Active).toBe('isActive');
      expect(mapping.columns.Status).toBeNull();
      expect(mapping.fields).toEqual({});
      expect(notes).toContain(
        'isActive: "Active" is mapped; "Status" looks like it too but needs another rule, so it is null. To use it instead: "Status": {"field":"isActive","values":{"active":true,"lapsed":false}}, "Active": null',
      );
      const candidates = await validateWith(path, parseMapping(mapping, 'm.json'));
      expect(candidates.map((c) => c.valid && c.item.isActive)).toEqual([true, false, true, false]);
    });

    it("a date column of real Excel dates and text dates: one rule reads both (the text's format, the dates as they are)", async () => {
      const path = await workbook('mixed-dates.xlsx', [
        utc(2024, 1, 5, 10, 30),
        '06.01.2024 11:00',
        utc(2024, 1, 7),
        '08.01.2024 09:15',
        utc(2024, 1, 9, 8),
        '31.02.2024 10:00',
        '10.01.2024 12:00',
        '11.01.2024 13:00',
        '12.01.2024 14:00',
        '13.01.2024 15:00',
      ]);
      const { mapping, notes } = await initMapping({ path }, 'Europe/Oslo');
      expect(mapping.columns.Joined).toEqual({
        field: 'createdAt',
        format: 'dd.MM.yyyy HH:mm',
        timeZone: 'Europe/Oslo',
      });
      expect(notes).toContain(
        '"Joined" → createdAt: 3 of its first 10 cells are dates (read as they are), the others text in "dd.MM.yyyy HH:mm"',
      );
      expect(notes).toContain(
        '"Joined" → createdAt: 1 of its first 10 cells is not a date in "dd.MM.yyyy HH:mm": "31.02.2024 10:00" (line 7): check it',
      );
      const candidates = await validateWith(path, parseMapping(mapping, 'm.json'));
      expect(candidates.slice(0, 4).map((c) => c.valid && c.item.createdAt)).toEqual([
        '2024-01-05T09:30:00.000Z',
        '2024-01-06T10:00:00.000Z',
        '2024-01-06T23:00:00.000Z',
        '2024-01-08T08:15:00.000Z',
      ]);
      expect(candidates.filter((c) => !c.valid).map((c) => c.line)).toEqual([7]);
    });
  });
});
