/** The mapping language (docs/mapping.md): every rule, its errors, and did-you-mean on keys, fields and rule names. */
import { describe, expect, it } from 'vitest';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { issuesOf, itemOf, usageMessage } from './mapping-helpers.js';

const mapError = (json: unknown) => usageMessage(() => parseMapping(json, 'm.json'));

/** A mapper for `headers` with the mapping; rows are objects by header, so a test names only what it needs. */
function mapperFor(mappingJson: unknown, headers: string[]) {
  const mapping = parseMapping(mappingJson, 'm.json');
  const mapper = createRecordMapper('csv', headers, { file: 'x.csv', mapping });
  return {
    mapper,
    row: (cells: Record<string, string>) =>
      mapper.toCandidate({ record: 1, line: 2, raw: headers.map((h) => cells[h] ?? '') }),
  };
}

/** The issue's example mapping, on an export with those columns. */
const EXAMPLE = {
  columns: {
    'Customer Id': 'memberId',
    'Old Notes': null,
    'Lead Score': { field: 'customProperties.leadScore', type: 'number' },
    'Date of birth': { field: 'birthdate', format: 'dd-MM-yyyy' },
    'Create Date': { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'America/New_York' },
    Country: { field: 'address.countryCode', convert: 'countryCode' },
    Status: { field: 'isActive', values: { active: true, lapsed: false } },
    Email: { field: 'email', transform: ['trim', 'lowercase'] },
  },
  fields: {
    isActive: { value: true },
    loyaltyProgram: { default: 'basic' },
    email: { firstOf: ['Work Email', 'Home Email', 'Other Email'] },
  },
};

describe('the example mapping of issue 17', () => {
  it('turns a messy row into a valid item', () => {
    // the example gives isActive and email twice (a column and a field rule): the cell wins when it has a value,
    // the field rule fills in otherwise
    const headers = [
      'Customer Id',
      'Old Notes',
      'Lead Score',
      'Date of birth',
      'Create Date',
      'Country',
      'Status',
      'Email',
      'Work Email',
      'Home Email',
      'Other Email',
    ];
    const { row } = mapperFor(EXAMPLE, headers);
    const item = itemOf(
      row({
        'Customer Id': 'C-17',
        'Old Notes': 'whatever',
        'Lead Score': '42.5',
        'Date of birth': '27-01-2014',
        'Create Date': '2023-01-05 10:22',
        Country: 'Chile',
        Status: 'Lapsed',
        'Home Email': 'Ann@Example.com',
      }),
    );
    expect(item).toEqual({
      memberId: 'C-17',
      customProperties: { leadScore: 42.5 },
      birthdate: '2014-01-27T00:00:00.000Z',
      createdAt: '2023-01-05T15:22:00.000Z',
      address: { countryCode: 'CL' },
      isActive: false,
      loyaltyProgram: 'basic',
      email: 'Ann@Example.com',
    });
    const filled = itemOf(
      row({
        'Customer Id': 'C-18',
        'Create Date': '2023-01-05 10:22',
        Email: ' Bo@Example.COM ',
        'Work Email': 'work@example.com',
      }),
    );
    expect(filled).toMatchObject({ isActive: true, email: 'bo@example.com' });
    // a cell the column cannot read stays an error: the field rule does not hide it
    expect(issuesOf(row({ 'Customer Id': 'C-19', 'Create Date': '2023-01-05 10:22', Status: 'gone' }))).toEqual([
      'isActive: "gone" is not one of the values the mapping lists ("active", "lapsed"); add it to "values", or give "otherwise" (column "Status")',
    ]);
  });
});

describe('format', () => {
  const dated = (format: string, extra: object = {}) =>
    mapperFor(
      {
        columns: { Id: 'memberId', D: { field: 'createdAt', format, ...extra } },
        fields: { isActive: { value: true } },
      },
      ['Id', 'D'],
    ).row;
  const createdAt = (format: string, cell: string, extra: object = {}) => {
    const c = dated(format, extra)({ Id: 'm', D: cell });
    return c.valid ? (c.item.createdAt as string) : issuesOf(c);
  };

  it('reads the common tokens', () => {
    expect(createdAt('dd-MM-yyyy', '27-01-2014')).toBe('2014-01-27T00:00:00.000Z');
    expect(createdAt('M/d/yyyy', '1/5/2023')).toBe('2023-01-05T00:00:00.000Z');
    expect(createdAt('M/d/yyyy h:mm a', '1/5/2023 1:07 PM', { timeZone: 'UTC' })).toBe('2023-01-05T13:07:00.000Z');
    expect(createdAt('M/d/yyyy h:mm a', '1/5/2023 12:07 am', { timeZone: 'UTC' })).toBe('2023-01-05T00:07:00.000Z');
    expect(createdAt('yyyy-MM-dd HH:mm:ss.SSS', '2023-01-05 10:22:33.456', { timeZone: 'UTC' })).toBe(
      '2023-01-05T10:22:33.456Z',
    );
    expect(createdAt("yyyy-MM-dd'T'HH:mmXXX", '2023-01-05T10:22+02:00')).toBe('2023-01-05T08:22:00.000Z');
    expect(createdAt('d MMM yyyy', '5 Jan 2023')).toBe('2023-01-05T00:00:00.000Z');
    expect(createdAt('MMMM d, yyyy', 'january 5, 2023')).toBe('2023-01-05T00:00:00.000Z');
  });

  it('yy: 69–99 are 1969–1999, 00–68 are 2000–2068, or the window twoDigitYearStart opens', () => {
    expect(createdAt('dd.MM.yy', '01.02.69')).toBe('1969-02-01T00:00:00.000Z');
    expect(createdAt('dd.MM.yy', '01.02.68')).toBe('2068-02-01T00:00:00.000Z');
    expect(createdAt('dd.MM.yy', '01.02.30', { twoDigitYearStart: 1930 })).toBe('1930-02-01T00:00:00.000Z');
    expect(createdAt('dd.MM.yy', '01.02.29', { twoDigitYearStart: 1930 })).toBe('2029-02-01T00:00:00.000Z');
  });

  it('a cell that does not match, or names a day that does not exist, is invalid, naming the format and the column', () => {
    expect(createdAt('dd-MM-yyyy', '2014/01/27')).toEqual([
      'createdAt: expected a date in the format "dd-MM-yyyy", got "2014/01/27" (column "D")',
    ]);
    expect(createdAt('dd-MM-yyyy', '30-02-2024')).toEqual([
      'createdAt: expected a date in the format "dd-MM-yyyy", got "30-02-2024" (column "D")',
    ]);
    expect(createdAt('dd-MM-yyyy', '29-02-2024')).toBe('2024-02-29T00:00:00.000Z');
    expect(createdAt('HH:mm dd-MM-yyyy', '24:00 01-01-2024', { timeZone: 'UTC' })).toHaveLength(1);
  });

  it("an ISO 8601 cell is read beside the format (a workbook's real date cells come so, beside text dates)", () => {
    expect(createdAt('dd-MM-yyyy', '2014-01-27')).toBe('2014-01-27T00:00:00.000Z');
    expect(createdAt('dd.MM.yyyy HH:mm', '2024-01-05T10:30:00', { timeZone: 'Europe/Oslo' })).toBe(
      '2024-01-05T09:30:00.000Z',
    );
    expect(createdAt('dd.MM.yyyy HH:mm', '2024-01-07', { timeZone: 'Europe/Oslo' })).toBe('2024-01-06T23:00:00.000Z');
    expect(createdAt('dd.MM.yyyy', '2024-01-05T10:30:00+02:00')).toBe('2024-01-05T10:30:00+02:00');
    // a local time needs the zone a date-only format did not ask for; a day that does not exist is no date
    expect(createdAt('dd.MM.yyyy', '2024-01-05T10:30:00')).toEqual([
      'createdAt: "2024-01-05T10:30:00" has a time but no offset: add "timeZone" to the rule to say where it was written (column "D")',
    ]);
    expect(createdAt('dd.MM.yyyy', '2024-02-30')).toEqual([
      'createdAt: not a real date-time: "2024-02-30" (column "D")',
    ]);
  });

  it('a pattern it cannot use is refused when the mapping is read, with a did-you-mean', () => {
    const at = (format: string, extra: object = {}) =>
      mapError({ columns: { D: { field: 'createdAt', format, ...extra } } });
    expect(at('DD-MM-YYYY')).toContain('unknown token "DD" (did you mean "dd-MM-yyyy"?)');
    expect(at("YYYY-MM-DD'T'HH:mm")).toContain('unknown token "YYYY" (did you mean "yyyy-MM-dd\'T\'HH:mm"?)');
    expect(at('dd-MM-YYYY')).toContain('unknown token "YYYY" (did you mean "dd-MM-yyyy"?)');
    expect(at('MM-dd')).toContain('has no year (yyyy)');
    expect(at('yyyy-MM-dd hh:mm', { timeZone: 'UTC' })).toContain('needs a (AM/PM)');
    expect(at('yyyy-MM-dd HH:mm')).toContain('has a time but no offset (XXX): add "timeZone"');
    expect(mapError({ columns: { D: { field: 'isActive', format: 'yyyy' } } })).toContain('isActive is not a date');
  });
});

describe('timeZone', () => {
  const inZone = (timeZone: string, cell: string, format?: string) => {
    const { row } = mapperFor(
      {
        columns: { Id: 'memberId', D: { field: 'createdAt', timeZone, ...(format ? { format } : {}) } },
        fields: { isActive: { value: true } },
      },
      ['Id', 'D'],
    );
    const c = row({ Id: 'm', D: cell });
    return c.valid ? (c.item.createdAt as string) : issuesOf(c);
  };

  it('reads local ISO forms in the zone, winter and summer; a value with an offset is kept as written', () => {
    expect(inZone('America/New_York', '2023-01-05 10:22')).toBe('2023-01-05T15:22:00.000Z');
    expect(inZone('America/New_York', '2023-07-05T10:22:30')).toBe('2023-07-05T14:22:30.000Z');
    expect(inZone('Europe/Oslo', '2023-07-05')).toBe('2023-07-04T22:00:00.000Z');
    expect(inZone('Europe/Oslo', '2023-07-05T10:22:00+05:00')).toBe('2023-07-05T10:22:00+05:00');
    expect(inZone('Asia/Kolkata', '2023-07-05 10:00')).toBe('2023-07-05T04:30:00.000Z');
    expect(inZone('Europe/Oslo', '2023-02-30 10:00')).toEqual([
      'createdAt: not a real date-time: "2023-02-30 10:00" (column "D")',
    ]);
  });

  it('DST: a time that exists twice is the earlier instant; one that does not exist moves forward by the gap', () => {
    // New York, 2023-11-05: 01:00–01:59 happens twice (EDT, then EST)
    expect(inZone('America/New_York', '2023-11-05 01:30')).toBe('2023-11-05T05:30:00.000Z');
    expect(inZone('America/New_York', '2023-11-05 00:59')).toBe('2023-11-05T04:59:00.000Z');
    expect(inZone('America/New_York', '2023-11-05 02:00')).toBe('2023-11-05T07:00:00.000Z');
    // New York, 2023-03-12: 02:00–02:59 does not exist; 02:30 is read as 03:30 EDT
    expect(inZone('America/New_York', '2023-03-12 02:30')).toBe('2023-03-12T07:30:00.000Z');
    expect(inZone('America/New_York', '2023-03-12 01:59')).toBe('2023-03-12T06:59:00.000Z');
    expect(inZone('America/New_York', '2023-03-12 03:00')).toBe('2023-03-12T07:00:00.000Z');
    // Oslo, 2024-03-31 02:30 does not exist; 2024-10-27 02:30 exists twice
    expect(inZone('Europe/Oslo', '31.03.2024 02:30', 'dd.MM.yyyy HH:mm')).toBe('2024-03-31T01:30:00.000Z');
    expect(inZone('Europe/Oslo', '27.10.2024 02:30', 'dd.MM.yyyy HH:mm')).toBe('2024-10-27T00:30:00.000Z');
    // Lord Howe moves by half an hour
    expect(inZone('Australia/Lord_Howe', '2023-10-01 02:15')).toBe('2023-09-30T15:45:00.000Z');
  });

  it('without a zone, a local date-time is invalid, and the message says a timeZone rule places it', () => {
    const c = createRecordMapper('csv', ['memberId', 'isActive', 'createdAt'], { file: 'x.csv' }).toCandidate({
      record: 1,
      line: 2,
      raw: ['m', 'yes', '2023-01-05T10:22:00'],
    });
    expect(issuesOf(c)).toEqual([
      expect.stringMatching(
        /got "2023-01-05T10:22:00"; it has no offset: a "timeZone" rule in the mapping \(--map\) says where it was written$/,
      ),
    ]);
  });

  it('an unknown zone is refused when the mapping is read, with a did-you-mean', () => {
    expect(mapError({ columns: { D: { field: 'createdAt', timeZone: 'Europe/Olso' } } })).toContain(
      'unknown time zone "Europe/Olso" (did you mean "Europe/Oslo"?)',
    );
  });
});

describe('convert', () => {
  const converted = (rule: object, cell: string, field = 'address.countryCode') => {
    const { row } = mapperFor(
      {
        columns: { Id: 'memberId', X: { field, ...rule } },
        fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
      },
      ['Id', 'X'],
    );
    const c = row({ Id: 'm', X: cell });
    if (!c.valid) return issuesOf(c);
    const item = c.item as Record<string, unknown>;
    return field.startsWith('address.') ? (item.address as Record<string, unknown>)[field.slice(8)] : item[field];
  };

  it('countryCode: names, variants, alpha-3 and alpha-2 to alpha-2; an unknown name is invalid, naming the cell', () => {
    const cc = (cell: string) => converted({ convert: 'countryCode' }, cell);
    expect(
      [
        'Chile',
        'chile',
        'USA',
        'United States of America',
        'UK',
        'South Korea',
        'Czechia',
        'DEU',
        'nor',
        'se',
        'Deutschland',
        'Sverige',
      ].map(cc),
    ).toEqual(['CL', 'CL', 'US', 'US', 'GB', 'KR', 'CZ', 'DE', 'NO', 'SE', 'DE', 'SE']);
    expect(cc('Atlantis')).toEqual([
      'address.countryCode: unknown country "Atlantis": expected a country name, an ISO 3166-1 alpha-2 or alpha-3 code (column "X")',
    ]);
    expect(cc('XX')).toHaveLength(1);
    // as word processors and Macs write names: a typographic apostrophe, decomposed accents, doubled spaces
    expect(['Côte d\u2019Ivoire', "Co\u0302te d'Ivoire", 'United  States'].map(cc)).toEqual(['CI', 'CI', 'US']);
  });

  it('e164: with a default region, or with +; an impossible number is invalid', () => {
    const phone = (cell: string, defaultRegion?: string) =>
      converted({ convert: 'e164', ...(defaultRegion ? { defaultRegion } : {}) }, cell, 'phone');
    expect(phone('(212) 555-0123', 'US')).toBe('+12125550123');
    expect(phone('070-123 45 67', 'SE')).toBe('+46701234567');
    expect(phone('+47 912 34 567')).toBe('+4791234567');
    expect(phone('12345', 'US')).toEqual([
      'phone: "12345": too short for a phone number in United States of America (+1) (column "X")',
    ]);
    expect(phone('070-123 45 67')).toHaveLength(1);
    expect(mapError({ columns: { X: { field: 'phone', convert: 'e164', defaultRegion: 'XY' } } })).toContain(
      '"defaultRegion": "XY" is not an ISO 3166-1 alpha-2',
    );
    expect(mapError({ columns: { X: { field: 'phone', convert: 'e146' } } })).toContain(
      'unknown conversion "e146" (did you mean "e164"?)',
    );
  });
});

describe('values and transform', () => {
  const status = (rule: object, cell: string) => {
    const { row } = mapperFor(
      {
        columns: { Id: 'memberId', S: { field: 'isActive', ...rule } },
        fields: { createdAt: { value: '2024-01-01T00:00:00Z' } },
      },
      ['Id', 'S'],
    );
    const c = row({ Id: 'm', S: cell });
    return c.valid ? c.item.isActive : issuesOf(c);
  };

  it('values: keys match in any case; an unlisted cell is invalid unless "otherwise" (beside values or in it) says what to send', () => {
    const values = { Active: true, lapsed: false };
    expect(status({ values }, 'ACTIVE')).toBe(true);
    expect(status({ values }, 'Lapsed')).toBe(false);
    expect(status({ values }, 'paused')).toEqual([
      'isActive: "paused" is not one of the values the mapping lists ("Active", "lapsed"); add it to "values", or give "otherwise" (column "S")',
    ]);
    expect(status({ values, otherwise: false }, 'paused')).toBe(false);
    // a string from values goes on through the field's type: "yes" is a boolean
    expect(status({ values: { current: 'yes' } }, 'current')).toBe(true);
    // two keys that differ only in case, with different values: which one a cell gets would be a guess
    expect(mapError({ columns: { S: { field: 'isActive', values: { active: true, ' ACTIVE': false } } } })).toContain(
      'columns["S"]: "values": "active" and " ACTIVE" are the same key (cells are looked up in any case, trimmed) with different values; keep one',
    );
    expect(status({ values: { yes: true, YES: true } }, 'Yes')).toBe(true);
    // map init writes null for a status word it cannot place: the record says which word, not only "must not be null"
    expect(status({ values: { active: true, paused: null } }, 'Paused')).toEqual([
      'isActive: "Paused" is null in "values", and isActive is required: say what to send for it (column "S")',
    ]);
  });

  it('transform: trim, lowercase, uppercase, collapseSpaces, in order; a misspelt one gets a did-you-mean', () => {
    const { row } = mapperFor(
      {
        columns: {
          Id: { field: 'memberId', transform: ['uppercase'] },
          N: { field: 'firstName', transform: ['collapseSpaces', 'lowercase'] },
        },
        fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
      },
      ['Id', 'N'],
    );
    expect(itemOf(row({ Id: 'c-1', N: '  Anna   MARIA ' }))).toMatchObject({
      memberId: 'C-1',
      firstName: 'anna maria',
    });
    const single = mapperFor(
      {
        columns: { Id: { field: 'memberId', transform: 'uppercase' } },
        fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
      },
      ['Id'],
    );
    expect(itemOf(single.row({ Id: 'c-2' }))).toMatchObject({ memberId: 'C-2' });
    expect(mapError({ columns: { N: { field: 'firstName', transform: ['trim', 'lowercse'] } } })).toBe(
      'mapping file m.json: columns["N"].transform[1]: unknown transform "lowercse" (did you mean "lowercase"?); expected one of trim, lowercase, uppercase, collapseSpaces',
    );
  });
});

describe('fields', () => {
  const base = {
    columns: { Id: 'memberId' },
    fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
  };

  it('value for every record; default when the cell is empty or there is no column; firstOf the first non-empty', () => {
    const mapping = {
      columns: { ...base.columns, Tier: 'loyaltyProgram' },
      fields: {
        ...base.fields,
        loyaltyProgram: { default: 'basic' },
        nationality: { default: 'NO' },
        email: { firstOf: ['Work', 'Home'], transform: ['lowercase'] },
      },
    };
    const { row } = mapperFor(mapping, ['Id', 'Tier', 'Work', 'Home']);
    expect(itemOf(row({ Id: 'a', Tier: 'gold', Home: 'A@B.C' }))).toEqual({
      memberId: 'a',
      loyaltyProgram: 'gold',
      nationality: 'NO',
      email: 'a@b.c',
      isActive: true,
      createdAt: '2024-01-01T00:00:00Z',
    });
    expect(itemOf(row({ Id: 'a', Work: 'w@x.y', Home: 'h@x.y' }))).toMatchObject({
      loyaltyProgram: 'basic',
      email: 'w@x.y',
    });
    expect(itemOf(row({ Id: 'a' }))).not.toHaveProperty('email');
  });

  it('one column may feed several fields', () => {
    const { row } = mapperFor(
      {
        ...base,
        columns: {
          Id: ['memberId', 'metadata.crmId'],
          Mail: ['email', { field: 'metadata.domain', transform: ['lowercase'] }],
        },
      },
      ['Id', 'Mail'],
    );
    expect(itemOf(row({ Id: 'c-1', Mail: 'A@B.C' }))).toMatchObject({
      memberId: 'c-1',
      email: 'A@B.C',
      metadata: { crmId: 'c-1', domain: 'a@b.c' },
    });
  });

  it('emptyAsNull: an empty cell clears the field', () => {
    const { row } = mapperFor({ ...base, columns: { Id: 'memberId', Phone: { field: 'phone', emptyAsNull: true } } }, [
      'Id',
      'Phone',
    ]);
    expect(itemOf(row({ Id: 'a' }))).toMatchObject({ phone: null });
  });

  it('a required field with no column and no rule is refused once, before any row, with the closest headers', () => {
    const headers = ['Customer Id', 'User Id', 'Contact ID', 'Record ID', 'id', 'Name', 'Status', 'Create Date'];
    const message = usageMessage(() => mapperFor({ columns: { Name: 'firstName' } }, headers));
    expect(message).toBe(
      'x.csv line 1: no column gives the required fields memberId (closest headers: "Customer Id", "User Id", "Contact ID", "Record ID", "id"); ' +
        'isActive (closest headers: "Status"); createdAt (closest headers: "Create Date")',
    );
    expect(usageMessage(() => createRecordMapper('csv', ['memberId', 'isActive'], { file: 'y.csv' }))).toContain(
      'createdAt (no header looks like it)',
    );
  });

  it('errors in fields name the key, with did-you-mean on keys and field names', () => {
    expect(mapError({ fields: { isActive: { valeu: true } } })).toContain(
      'fields["isActive"]: unknown key "valeu" (did you mean "value"?)',
    );
    expect(mapError({ fields: { isActiv: { value: true } } })).toContain(
      'fields["isActiv"]: unknown field "isActiv" (did you mean isActive?)',
    );
    expect(mapError({ feilds: {} })).toContain('(top level): unknown key "feilds" (did you mean "fields"?)');
    expect(mapError([])).toContain('mapping file m.json: (top level): expected object, got []');
    expect(mapError({ columns: { X: { feld: 'email' } } })).toContain(
      'columns["X"]: unknown key "feld" (did you mean "field"?)',
    );
    expect(mapError({ fields: { email: { value: 'a', default: 'b' } } })).toContain(
      '"value" is the same for every record',
    );
    expect(mapError({ fields: { email: {} } })).toContain('give "value", "default", "firstOf" or "column"');
    expect(mapError({ columns: { X: { field: 'email', otherwise: 'x' } } })).toContain('"otherwise" needs "values"');
  });
});

describe('JSON and NDJSON with a mapping', () => {
  const mapping = parseMapping(
    {
      columns: {
        id: 'memberId',
        'contact.email': { field: 'email', transform: ['lowercase'] },
        'contact.phones.0': { field: 'phone', convert: 'e164', defaultRegion: 'US' },
        'address.country': { field: 'address.countryCode', convert: 'countryCode' },
        status: { field: 'isActive', values: { active: true, inactive: false } },
        created: { field: 'createdAt', format: 'M/d/yyyy h:mm a', timeZone: 'America/Chicago' },
      },
      fields: { loyaltyProgram: { default: 'basic' } },
    },
    'crm.json',
  );
  const mapper = createRecordMapper('ndjson', undefined, { file: 'crm.ndjson', mapping });
  const map = (raw: unknown) => mapper.toCandidate({ record: 1, line: 1, raw });

  it('reads dotted paths into the record; numbers are read as their text; unread properties pass through', () => {
    const c = map({
      id: 42,
      contact: { email: 'A@B.C', phones: ['(312) 555-0188'] },
      address: { country: 'Canada' },
      status: 'Active',
      created: '1/5/2023 9:05 AM',
      firstName: 'Ann',
    });
    expect(itemOf(c)).toEqual({
      memberId: '42',
      email: 'a@b.c',
      phone: '+13125550188',
      address: { countryCode: 'CA' },
      isActive: true,
      createdAt: '2023-01-05T15:05:00.000Z',
      firstName: 'Ann',
      loyaltyProgram: 'basic',
    });
    expect(c.memberId).toBe('42');
  });

  it('a value a rule cannot read is invalid, naming the path', () => {
    const c = map({ id: 'x', status: 'gone', created: '2023/01/05' });
    expect(issuesOf(c)).toEqual([
      'isActive: "gone" is not one of the values the mapping lists ("active", "inactive"); add it to "values", or give "otherwise" (at "status")',
      'createdAt: expected a date in the format "M/d/yyyy h:mm a", got "2023/01/05" (at "created")',
    ]);
  });

  it("a path rule beside a fields rule for the same field: the path's value wins, the fields rule fills in (as for CSV)", () => {
    const both = parseMapping(
      {
        columns: {
          id: 'memberId',
          created: 'createdAt',
          st: { field: 'isActive', values: { active: true, lapsed: false } },
        },
        fields: { isActive: { value: true } },
      },
      'm.json',
    );
    const row = (raw: unknown) =>
      createRecordMapper('ndjson', undefined, { file: 'j.ndjson', mapping: both }).toCandidate({
        record: 1,
        line: 1,
        raw,
      });
    expect(itemOf(row({ id: 'a', st: 'lapsed', created: '2024-01-01' })).isActive).toBe(false);
    expect(itemOf(row({ id: 'b', st: '', created: '2024-01-01' })).isActive).toBe(true);
  });
});

describe("--changed-only's source key", () => {
  it('covers the whole mapping: any rule changed gives another key for the same cells', () => {
    const headers = ['Id', 'Status', 'Created'];
    const cells = ['c-1', 'active', '2023-01-05 10:22'];
    const keyWith = (mapping: unknown) =>
      createRecordMapper('csv', headers, { file: 'x.csv', mapping: parseMapping(mapping, 'm.json') }).sourceKey!({
        record: 1,
        line: 2,
        raw: cells,
      })!.key;
    const base = {
      columns: {
        Id: 'memberId',
        Status: { field: 'isActive', values: { active: true } },
        Created: { field: 'createdAt', timeZone: 'Europe/Oslo' },
      },
    };
    const keys = [
      base,
      { ...base, columns: { ...base.columns, Created: { field: 'createdAt', timeZone: 'Europe/Paris' } } },
      { ...base, columns: { ...base.columns, Status: { field: 'isActive', values: { active: false } } } },
      { ...base, columns: { ...base.columns, Id: { field: 'memberId', transform: ['uppercase'] } } },
      { ...base, fields: { loyaltyProgram: { default: 'basic' } } },
    ].map(keyWith);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keyWith(base)).toBe(keys[0]);
  });

  it('the memberId it keys on is the mapped one (a transform, or firstOf)', () => {
    const mapping = parseMapping(
      {
        columns: { Id: { field: 'memberId', transform: ['uppercase'] } },
        fields: { isActive: { value: true }, createdAt: { value: '2024-01-01T00:00:00Z' } },
      },
      'm.json',
    );
    const mapper = createRecordMapper('csv', ['Id'], { file: 'x.csv', mapping });
    expect(mapper.sourceKey!({ record: 1, line: 2, raw: [' c-1 '] })!.memberId).toBe('C-1');
    const viaFirstOf = createRecordMapper('csv', ['A', 'B'], {
      file: 'x.csv',
      mapping: parseMapping(
        {
          fields: {
            memberId: { firstOf: ['A', 'B'] },
            isActive: { value: true },
            createdAt: { value: '2024-01-01T00:00:00Z' },
          },
        },
        'm.json',
      ),
    });
    expect(viaFirstOf.sourceKey!({ record: 1, line: 2, raw: ['', 'b-7'] })!.memberId).toBe('b-7');
  });
});

describe('treatAsEmpty', () => {
  const base = { memberId: 'm1', isActive: 'yes', createdAt: '2024-01-01T00:00:00Z' };
  const headers = ['memberId', 'isActive', 'createdAt', 'Birthday', 'Other'];

  it('reads exactly the listed cells as empty (the field left out); any other cell that is not a date stays a problem', () => {
    const { row } = mapperFor(
      { columns: { Birthday: { field: 'birthdate', treatAsEmpty: ['0000-00-00'] }, Other: null } },
      headers,
    );
    const blank = itemOf(row({ ...base, Birthday: ' 0000-00-00 ' }));
    expect('birthdate' in blank).toBe(false);
    expect(itemOf(row({ ...base, Birthday: '1985-12-01' })).birthdate).toBe('1985-12-01T00:00:00.000Z');
    for (const typo of ['1985-02-31', '1990-13-01', '19850704', '0000-00-01'])
      expect(issuesOf(row({ ...base, Birthday: typo })).join('\n')).toContain(`got "${typo}"`);
  });

  it('is an empty cell: emptyAsNull sends null, firstOf goes on to the next column, JSON too', () => {
    const asNull = mapperFor(
      {
        columns: {
          Birthday: { field: 'birthdate', treatAsEmpty: ['0000-00-00'], emptyAsNull: true },
          Other: null,
        },
      },
      headers,
    );
    expect(itemOf(asNull.row({ ...base, Birthday: '0000-00-00' })).birthdate).toBeNull();
    const first = mapperFor(
      { fields: { birthdate: { firstOf: ['Birthday', 'Other'], treatAsEmpty: ['0000-00-00'] } } },
      headers,
    );
    expect(itemOf(first.row({ ...base, Birthday: '0000-00-00', Other: '1990-06-15' })).birthdate).toBe(
      '1990-06-15T00:00:00.000Z',
    );
    const mapping = parseMapping({ columns: { dob: { field: 'birthdate', treatAsEmpty: ['0000-00-00'] } } }, 'm.json');
    const json = createRecordMapper('ndjson', undefined, { file: 'j.ndjson', mapping });
    const item = itemOf(json.toCandidate({ record: 1, line: 1, raw: { ...base, isActive: true, dob: '0000-00-00' } }));
    expect('birthdate' in item || 'dob' in item).toBe(false);
  });

  it('is refused when it is not a list of cells', () => {
    expect(mapError({ columns: { B: { field: 'birthdate', treatAsEmpty: '0000-00-00' } } })).toContain('treatAsEmpty');
  });
});
