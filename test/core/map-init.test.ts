/** `map init`: a starter mapping that loads as it is and almost works. */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { initMapping } from '../../src/core/map-init/map-init.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-mapinit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('map init', () => {
  it('guesses a field per header, null for the rest, a date format with a zone, values for a status, country conversion', async () => {
    const path = file('export.csv', [
      'Customer Id,Full Name,E-mail Address,Mobile,Country,Status,Date of birth,Create Date,Lead Score',
      'C-1,Ann Berg,ann@example.com,+4791234567,Norway,Active,19-07-1984,2023-01-05 10:22,4',
      'C-2,Bo Li,bo@example.com,+4791234568,Sweden,lapsed,02-11-1991,2023-03-12 14:30,5',
      'C-3,Cy Do,cy@example.com,,Chile,on hold,13-12-1990,2023-03-13 09:00,',
    ].join('\n'));
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
    expect(notes.join('\n')).toContain('"Create Date" → createdAt: times without an offset; assumed "timeZone": "Europe/Oslo"');
    expect(notes.join('\n')).toContain('say true or false for "on hold"');
    // it loads as it is, and reads the rows
    const mapper = createRecordMapper('csv', ['Customer Id', 'Full Name', 'E-mail Address', 'Mobile', 'Country', 'Status', 'Date of birth', 'Create Date', 'Lead Score'], { file: 'export.csv', mapping: parseMapping(mapping, 'm.json') });
    const c = mapper.toCandidate({ record: 1, line: 2, raw: ['C-1', 'Ann Berg', 'ann@example.com', '+4791234567', 'Norway', 'Active', '19-07-1984', '2023-01-05 10:22', '4'] });
    expect(c.valid && c.item).toMatchObject({ memberId: 'C-1', address: { countryCode: 'NO' }, createdAt: '2023-01-05T09:22:00.000Z' });
  });

  it('a country column with names converts even when few of its first cells are known names (a cell that is no code fails anyway)', async () => {
    const path = file('few-countries.csv', 'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,Chile\nm-2,true,2024-01-01,Narnia\nm-3,true,2024-01-01,Atlantis\n');
    const { mapping } = await initMapping({ path });
    expect(mapping.columns.Country).toEqual({ field: 'address.countryCode', convert: 'countryCode' });
    const codes = file('codes.csv', 'memberId,isActive,createdAt,Country\nm-1,true,2024-01-01,NO\nm-2,true,2024-01-01,se\n');
    expect((await initMapping({ path: codes })).mapping.columns.Country).toBe('address.countryCode');
  });

  it('from standard input, the validate it advises reads standard input again (-, not "stdin")', async () => {
    const stdin = Readable.from(['memberId,isActive,createdAt\nm-1,true,2024-01-01\n']);
    const { validateCommand } = await initMapping({ path: '-', format: 'csv', stdin });
    expect(validateCommand).toBe('memberctl validate - --format csv');
  });

  it('local ISO date-times (a workbook\'s date cells) get a zone and no format', async () => {
    const path = file('local.csv', 'memberId,isActive,createdAt\nm-1,true,2023-01-05T10:22:00\nm-2,false,2024-01-01T00:00:00Z\n');
    const { mapping } = await initMapping({ path }, 'Europe/Oslo');
    expect(mapping.columns.createdAt).toEqual({ field: 'createdAt', timeZone: 'Europe/Oslo' });
  });

  it('a placeholder for each required field no column gives; the mapping still loads', async () => {
    const path = file('people.csv', 'Name,Email,Updated\nAnn,ann@example.com,2024-01-01\n');
    const { mapping, notes } = await initMapping({ path });
    expect(Object.keys(mapping.fields)).toEqual(['memberId', 'isActive', 'createdAt']);
    expect(mapping.fields.isActive).toEqual({ value: true });
    expect(notes).toHaveLength(3);
    expect(notes[1]).toBe('isActive: no column looks like it; fields["isActive"] says true for every member: map a status column instead if there is one');
    const loaded = parseMapping(mapping, 'm.json');
    // the memberId placeholder names no column: validate stops before any row, with the closest headers
    expect(() => createRecordMapper('csv', ['Name', 'Email', 'Updated'], { file: 'people.csv', mapping: loaded })).toThrow(/no column gives the required field memberId/);
  });

  it('JSON: dotted paths to the values of the first records', async () => {
    const path = file('crm.ndjson', `${JSON.stringify({ id: 7, contact: { email: 'a@b.c', phones: ['+4791234567'], emails: [{ type: 'home', value: 'h@b.c' }] }, created: '2024-01-05T10:00:00Z', active: true })}\n`);
    const { mapping, format } = await initMapping({ path });
    expect(format).toBe('ndjson');
    expect(mapping.columns).toEqual({ id: 'memberId', 'contact.phones.0': 'phone', 'contact.emails.0.type': null, created: 'createdAt', active: 'isActive' });
    // two paths look like an e-mail: the first non-empty of them
    expect(mapping.fields).toEqual({ email: { firstOf: ['contact.email', 'contact.emails.0.value'] } });
    const mapper = createRecordMapper('ndjson', undefined, { file: 'crm.ndjson', mapping: parseMapping(mapping, 'm.json') });
    const c = mapper.toCandidate({ record: 1, line: 1, raw: JSON.parse(readFileSync(path, 'utf8')) });
    expect(c.valid && c.item).toEqual({ memberId: '7', email: 'a@b.c', phone: '+4791234567', createdAt: '2024-01-05T10:00:00Z', isActive: true });
  });
});
