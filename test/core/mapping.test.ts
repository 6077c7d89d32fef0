import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { loadMappingFile } from '../../src/core/mapping/mapping-file.js';
import { closestField, editDistance, resolveFieldTarget } from '../../src/core/mapping/targets.js';
import { issuesOf, itemOf, usageMessage } from './mapping-helpers.js';
import { UsageError } from '../../src/errors.js';

const FILE = 'members.csv';
const csv = (headers: string[], options: Parameters<typeof createRecordMapper>[2] = { file: FILE }) => {
  const mapper = createRecordMapper('csv', headers, options);
  return (cells: string[], record = 1) => mapper.toCandidate({ record, line: record + 1, raw: cells });
};
const json = (raw: unknown) =>
  createRecordMapper('ndjson', undefined, { file: 'm.ndjson' }).toCandidate({ record: 1, line: 1, raw });
const required = ['memberId', 'isActive', 'createdAt'];
const okRow = ['m-1', 'yes', '2024-05-01T12:00:00Z'];

describe('header resolution', () => {
  it('ignores case, spaces, _ and - in field names', () => {
    for (const header of ['Member ID', 'member_id', 'MEMBERID', 'member-id', ' memberId ']) {
      expect(resolveFieldTarget(header), header).toEqual({ kind: 'field', field: 'memberId', type: 'string' });
    }
    expect(resolveFieldTarget('Is Membership Fee Paid')).toMatchObject({
      field: 'isMembershipFeePaid',
      type: 'boolean',
    });
    expect(resolveFieldTarget('birth_date')).toMatchObject({ field: 'birthdate', type: 'date' });
  });

  it('dotted headers: lenient prefix and address fields, exact metadata/customProperties keys', () => {
    expect(resolveFieldTarget('Address.Zip Code')).toEqual({ kind: 'address', field: 'zipCode' });
    expect(resolveFieldTarget('address.address_line_1')).toEqual({ kind: 'address', field: 'addressLine1' });
    expect(resolveFieldTarget('custom_properties.score')).toEqual({
      kind: 'customProperties',
      key: 'score',
      type: 'string',
    });
    expect(resolveFieldTarget('META-DATA.Tier Level')).toEqual({ kind: 'metadata', key: 'Tier Level' });
    expect(resolveFieldTarget('metadata.a.b')).toEqual({ kind: 'metadata', key: 'a.b' });
    expect(resolveFieldTarget('address.street')).toBeUndefined();
    expect(resolveFieldTarget('metadata.')).toBeUndefined();
    expect(resolveFieldTarget('other.key')).toBeUndefined();
  });

  it('suggests the closest field', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestField('emial')).toBe('email');
    expect(closestField('E-mail Address')).toBe('email');
    expect(closestField('Active')).toBe('isActive');
    expect(closestField('zip')).toBe('address.zipCode');
    expect(closestField('xy')).toBeUndefined();
    expect(closestField('city')).toBe('address.city');
    expect(closestField('Favourite Colour')).toBeUndefined();
  });

  it('an unknown header is a usage error before any row, naming header, column and suggestion', () => {
    const message = usageMessage(() => csv(['memberId', 'E-mail Address', 'Shoe Size', 'isActive', 'createdAt']));
    expect(message).toBe(
      'members.csv line 1: unknown columns "E-mail Address" (column 2: did you mean email?), "Shoe Size" (column 3)',
    );
    expect(usageMessage(() => csv([...required, 'address']))).toContain('use address.<field>');
  });

  it('--ignore-unknown-columns skips them with a warning', () => {
    const mapper = createRecordMapper('csv', [...required, 'Shoe Size'], { file: FILE, ignoreUnknownColumns: true });
    expect(mapper.warnings).toEqual(['members.csv: ignoring unknown column "Shoe Size" (column 4)']);
    const c = mapper.toCandidate({ record: 1, line: 2, raw: [...okRow, '44'] });
    expect(itemOf(c)).toEqual({ memberId: 'm-1', isActive: true, createdAt: '2024-05-01T12:00:00Z' });
  });

  it('two columns for one field are refused', () => {
    expect(usageMessage(() => csv(['memberId', 'Member ID']))).toBe(
      'members.csv line 1: columns "memberId" (column 1) and "Member ID" (column 2) both map to memberId',
    );
    // all of them at once, one problem each
    let error: UsageError | undefined;
    try {
      csv(['memberId', 'Member ID', 'email', 'E-mail', 'isActive', 'createdAt']);
    } catch (caught) {
      error = caught as UsageError;
    }
    expect(error!.problems!.map((p) => p.message)).toEqual([
      'members.csv line 1: columns "memberId" (column 1) and "Member ID" (column 2) both map to memberId',
      'members.csv line 1: columns "email" (column 3) and "E-mail" (column 4) both map to email',
    ]);
  });

  it("a rejects file's trailing stage and error columns are not read", () => {
    const row = csv([...required, 'email', 'stage', 'error']);
    expect(itemOf(row([...okRow, 'a@b.c', 'invalid', 'email: bad']))).toEqual({
      memberId: 'm-1',
      isActive: true,
      createdAt: '2024-05-01T12:00:00Z',
      email: 'a@b.c',
    });
    // elsewhere they are ordinary unknown columns
    expect(usageMessage(() => csv(['stage', ...required]))).toContain('"stage"');
  });
});

describe('--map', () => {
  const mapping = parseMapping(
    {
      columns: {
        'Contact ID': 'memberId',
        'E-mail Address': 'email',
        'Internal Notes': null,
        Score: { field: 'customProperties.score', type: 'number' },
        Tags: { field: 'custom_properties.tags', type: 'json' },
        VIP: { field: 'customProperties.vip', type: 'boolean' },
        'Not In File': 'phone',
      },
    },
    'crm-mapping.json',
  );

  it('maps other names, drops null columns, types customProperties, warns about unused rules', () => {
    const mapper = createRecordMapper(
      'csv',
      ['contact_id', 'E-mail Address', 'Internal Notes', 'Score', 'Tags', 'VIP', 'isActive', 'createdAt'],
      { file: FILE, mapping },
    );
    expect(mapper.warnings).toEqual([
      'mapping file crm-mapping.json: column "Not In File" is not in members.csv\'s header',
    ]);
    const c = mapper.toCandidate({
      record: 1,
      line: 2,
      raw: ['c-9', 'x@y.z', 'secret', '4.5', '["a",1]', 'Y', '1', '2024-05-01'],
    });
    expect(itemOf(c)).toEqual({
      memberId: 'c-9',
      email: 'x@y.z',
      customProperties: { score: 4.5, tags: ['a', 1], vip: true },
      isActive: true,
      createdAt: '2024-05-01T00:00:00.000Z',
    });
    const bad = mapper.toCandidate({
      record: 2,
      line: 3,
      raw: ['c-9', 'x@y.z', '', 'lots', '[1,', 'maybe', '1', '2024-05-01'],
    });
    expect(issuesOf(bad)).toEqual([
      'customProperties.score: expected a number, got "lots" (column "Score")',
      'customProperties.tags: expected a JSON value (the column\'s type is json), got "[1," (column "Tags")',
      'customProperties.vip: expected true/false, yes/no, y/n or 1/0, got "maybe" (column "VIP")',
    ]);
  });

  it('refuses a malformed mapping file, naming the file and the key', () => {
    expect(usageMessage(() => parseMapping({ columns: { Mail: 'emial' } }, 'm.json'))).toBe(
      'mapping file m.json: columns["Mail"]: unknown field "emial" (did you mean email?)',
    );
    expect(
      usageMessage(() => parseMapping({ columns: { X: { field: 'email', type: 'number' } } }, 'm.json')),
    ).toContain('columns["X"]: "type" applies only to customProperties');
    expect(usageMessage(() => parseMapping({ colums: {} }, 'm.json'))).toContain(
      'mapping file m.json: (top level): unknown key "colums"',
    );
    expect(usageMessage(() => parseMapping({ columns: { X: 5 } }, 'm.json'))).toContain(
      'mapping file m.json: columns["X"]',
    );
    expect(
      usageMessage(() => parseMapping({ columns: { X: { field: 'customProperties.a', type: 'date' } } }, 'm.json')),
    ).toContain('columns["X"].type: unknown type "date"; expected one of string, number, boolean, json');
  });

  it('reports every problem of a mapping file at once, each with its JSON path and a hint', () => {
    let error: UsageError | undefined;
    try {
      parseMapping(
        {
          colums: {},
          columns: {
            Mail: 'emial',
            N: { field: 'email', transform: ['trim', 'lowercse'], feld: 'x' },
            D: { field: 'createdAt', format: 'yyyy-MM-dd HH:mm', timeZone: 'Europe/Olso' },
            Ok: 'memberId',
          },
          fields: { isActive: { value: true, default: false }, loyaltyProgram: {} },
        },
        'm.json',
      );
    } catch (caught) {
      error = caught as UsageError;
    }
    expect(error).toBeInstanceOf(UsageError);
    const problems = error!.problems!;
    expect(problems.map((p) => p.message)).toEqual([
      'mapping file m.json: (top level): unknown key "colums" (did you mean "columns"?); known keys: description, columns, fields, decisions',
      'mapping file m.json: columns["Mail"]: unknown field "emial" (did you mean email?)',
      'mapping file m.json: columns["N"]: unknown key "feld" (did you mean "field"?); known keys: field, type, transform, treatAsEmpty, values, otherwise, convert, defaultRegion, format, timeZone, twoDigitYearStart, emptyAsNull, onInvalid',
      'mapping file m.json: columns["N"].transform[1]: unknown transform "lowercse" (did you mean "lowercase"?); expected one of trim, lowercase, uppercase, collapseSpaces',
      'mapping file m.json: columns["D"]: "timeZone": unknown time zone "Europe/Olso" (did you mean "Europe/Oslo"?): expected an IANA zone such as Europe/Oslo, America/New_York or UTC',
      'mapping file m.json: fields["isActive"]: "value" is the same for every record, so it takes no "default", "firstOf" or "column"',
      'mapping file m.json: fields["loyaltyProgram"]: give "value", "default", "firstOf" or "column"',
    ]);
    for (const problem of problems) expect(problem.hint).toMatch(/\S/);
    // each hint is about its problem: the field names, the column rule's keys, the zone's section
    expect(problems.map((p) => /docs\/mapping\.md(#[a-z-]+)?|Targets are/.exec(p.hint!)?.[0])).toEqual([
      'docs/mapping.md',
      'Targets are',
      'docs/mapping.md#cell-rules',
      'docs/mapping.md#cell-rules',
      'docs/mapping.md#timezone',
      'docs/mapping.md#fields',
      'docs/mapping.md#fields',
    ]);
    expect(error!.code).toBe('mapping-file');
    expect(error!.message).toBe(`${problems[0]!.message} (and 6 more problems)`);
  });

  it('a mapping file that cannot be read or parsed: the line and column of the JSON slip, a directory in words', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-mapping-file-'));
    try {
      const file = join(dir, 'm.json');
      writeFileSync(file, '{\n  "columns": {\n    "a": "memberId",\n  }\n}\n');
      const rejected = await loadMappingFile(file).catch((error: Error) => error.message);
      expect(rejected).toMatch(
        /^mapping file .*m\.json is not valid JSON \(line 4, column 3\): Expected double-quoted property name$/,
      );
      expect(await loadMappingFile(dir).catch((error: Error) => error.message)).toBe(
        `mapping file ${dir}: is a directory, not a file`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CSV-only options are refused for JSON input (a mapping is not: tests in mapping-rules.test.ts)', () => {
    expect(() => createRecordMapper('ndjson', undefined, { file: 'a.ndjson', nullToken: 'NULL' })).toThrow(
      '--null-token',
    );
  });
});

describe('--map: keys named like Object.prototype are data', () => {
  it('a column or a value named "__proto__", "constructor" or "prototype" works as written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-proto-map-'));
    const path = join(dir, 'm.json');
    // written as text: in a JavaScript object literal, __proto__ would set the prototype instead of a key
    writeFileSync(
      path,
      `{"columns": {"__proto__": "email", "constructor": "address.city", "prototype": {"field": "metadata.tier",
        "values": {"__proto__": "gold", "constructor": "silver", "prototype": "bronze"}}}}`,
    );
    const mapping = await loadMappingFile(path).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect([...mapping.columns.keys()]).toEqual(['__proto__', 'constructor', 'prototype']);
    const mapper = csv([...required, '__proto__', 'constructor', 'prototype'], { file: FILE, mapping });
    expect(itemOf(mapper([...okRow, 'a@b.example', 'Oslo', '__proto__']))).toMatchObject({
      email: 'a@b.example',
      address: { city: 'Oslo' },
      metadata: { tier: 'gold' },
    });
    expect(itemOf(mapper([...okRow, '', '', 'constructor'])).metadata).toEqual({ tier: 'silver' });
    expect(itemOf(mapper([...okRow, '', '', 'PROTOTYPE'])).metadata).toEqual({ tier: 'bronze' });
    expect(issuesOf(mapper([...okRow, '', '', 'toString']))[0]).toMatch(/"toString" is not one of the values/);
  });

  it('a JSON record\'s own "__proto__" key passes through a mapping as a key, named by the schema', () => {
    const mapping = parseMapping({ columns: { Mail: 'email' } }, 'm.json');
    const raw = JSON.parse(
      '{"memberId": "m-1", "isActive": true, "createdAt": "2024-05-01T12:00:00Z", "__proto__": {"x": 1}}',
    );
    const mapped = createRecordMapper('ndjson', undefined, { file: 'm.ndjson', mapping }).toCandidate({
      record: 1,
      line: 1,
      raw,
    });
    expect(mapped.valid ? [] : mapped.issues.map((issue) => issue.path)).toEqual(['__proto__']);
  });

  it('a fields rule named "__proto__" is refused as an unknown field, not lost', () => {
    const mapping = JSON.parse('{"fields": {"__proto__": {"value": true}}}') as unknown;
    expect(usageMessage(() => parseMapping(mapping, 'm.json'))).toMatch(
      /fields\["__proto__"\]: unknown field "__proto__"/,
    );
  });
});

describe('CSV cells', () => {
  const headers = [
    ...required,
    'email',
    'isEmployee',
    'deceased',
    'birthdate',
    'address.city',
    'metadata.tier',
    'customProperties.score',
  ];
  const row = csv(headers);
  const withCells = (...rest: string[]) => row([...okRow, ...rest]);

  it('trims, and an empty cell is "not given"', () => {
    expect(itemOf(row(['  m-1 ', ' TRUE ', ' 2024-05-01T12:00:00+02:00 ', '', '  ', '', '']))).toEqual({
      memberId: 'm-1',
      isActive: true,
      createdAt: '2024-05-01T12:00:00+02:00',
    });
    expect(itemOf(row(okRow))).not.toHaveProperty('address');
  });

  it('booleans: true/false/yes/no/y/n/1/0 in any case', () => {
    for (const [cell, value] of [
      ['true', true],
      ['Yes', true],
      ['Y', true],
      ['1', true],
      ['FALSE', false],
      ['no', false],
      ['n', false],
      ['0', false],
    ] as const) {
      expect(itemOf(withCells('', cell)).isEmployee, cell).toBe(value);
    }
    expect(issuesOf(withCells('', 'maybe'))).toEqual([
      'isEmployee: expected true/false, yes/no, y/n or 1/0, got "maybe"',
    ]);
    expect(issuesOf(row(['m-1', 'ja', '2024-05-01T12:00:00Z']))).toEqual([
      'isActive: expected true/false, yes/no, y/n or 1/0, got "ja"',
    ]);
  });

  it('dates: date-times as written, a plain date is midnight UTC, anything else is invalid', () => {
    expect(itemOf(withCells('', '', '', '1990-02-28')).birthdate).toBe('1990-02-28T00:00:00.000Z');
    expect(itemOf(withCells('', '', '', '1990-02-28T08:00:00.5-05:00')).birthdate).toBe('1990-02-28T08:00:00.5-05:00');
    expect(issuesOf(withCells('', '', '', '1990-02-30'))).toEqual([
      'birthdate: expected an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z) or a date (2024-05-01), got "1990-02-30"', // the cell as written, not the midnight made of it
    ]);
    expect(issuesOf(withCells('', '', '', '28/02/1990'))[0]).toContain('got "28/02/1990"');
    expect(issuesOf(withCells('', '', '', '1990-02-28T08:00:00'))).toHaveLength(1);
  });

  it('builds address, metadata and customProperties (text by default)', () => {
    expect(itemOf(withCells('a@b.c', '', '', '', 'Oslo', 'gold', '007'))).toEqual({
      memberId: 'm-1',
      isActive: true,
      createdAt: '2024-05-01T12:00:00Z',
      email: 'a@b.c',
      address: { city: 'Oslo' },
      metadata: { tier: 'gold' },
      customProperties: { score: '007' },
    });
  });

  it('reports every issue, in item terms, and keeps the memberId of an invalid record', () => {
    const c = row(['m-7', '', 'yesterday', 'x'.repeat(257), '', '', '', 'C'.repeat(33)]);
    expect(c.valid).toBe(false);
    expect(c.memberId).toBe('m-7');
    // in the API's field order
    expect(issuesOf(c)).toEqual([
      'email: must be at most 256 characters, got 257',
      'address.city: must be at most 32 characters, got 33',
      'isActive: required',
      'createdAt: expected an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z) or a date (2024-05-01), got "yesterday"',
    ]);
    expect(c.valid === false && c.issues.map((i) => i.rule)).toEqual([
      'longer than 256 characters',
      'longer than 32 characters',
      'required',
      'not an ISO 8601 date-time',
    ]);
  });

  it('names the column when it differs from the field', () => {
    const mapped = csv(['Member ID', 'isActive', 'createdAt'])(['x'.repeat(37), 'y', '2024-05-01']);
    expect(issuesOf(mapped)).toEqual(['memberId: must be at most 36 characters, got 37 (column "Member ID")']);
  });

  it('a short row leaves the missing cells out', () => {
    expect(issuesOf(row(['m-1']))).toEqual(['isActive: required', 'createdAt: required']);
  });

  it('--null-token: a cell equal to the token is null (clears a field); null where the API forbids it is invalid', () => {
    const nullable = csv([...required, 'email', 'address.city', 'metadata.tier', 'customProperties.x', 'isEmployee'], {
      file: FILE,
      nullToken: 'NULL',
    });
    expect(itemOf(nullable([...okRow, 'NULL', ' NULL ', 'NULL', 'NULL', '']))).toEqual({
      memberId: 'm-1',
      isActive: true,
      createdAt: '2024-05-01T12:00:00Z',
      email: null,
      address: { city: null },
      metadata: { tier: null },
      customProperties: { x: null },
    });
    expect(issuesOf(nullable([...okRow, 'null', '', '', '', 'NULL']))).toEqual(['isEmployee: must not be null']);
    expect(itemOf(row([...okRow, 'NULL'])).email).toBe('NULL');
  });

  it('metadata/customProperties keys __proto__, constructor and prototype are data', () => {
    const keys = ['__proto__', 'constructor', 'prototype'];
    const mapper = csv([...required, ...keys.map((k) => `metadata.${k}`), ...keys.map((k) => `customProperties.${k}`)]);
    const item = itemOf(mapper([...okRow, 'a', 'b', 'c', 'd', 'e', 'f']));
    expect(Object.keys(item.metadata!)).toEqual(keys);
    expect(Object.keys(item.customProperties!)).toEqual(keys);
    expect(JSON.parse(JSON.stringify(item)).metadata).toEqual(
      JSON.parse('{"__proto__":"a","constructor":"b","prototype":"c"}'),
    );
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'd')).toBe(false);
  });
});

describe('JSON records', () => {
  const base = { memberId: 'j-1', isActive: true, createdAt: '2024-05-01T12:00:00Z' };

  it('are taken as they are', () => {
    expect(itemOf(json({ ...base, metadata: { a: null } }))).toEqual({ ...base, metadata: { a: null } });
  });

  it('never coerce, and say so', () => {
    expect(issuesOf(json({ ...base, isActive: 'yes' }))).toEqual([
      'isActive: expected boolean, got string "yes" (JSON values are not coerced)',
    ]);
    expect(issuesOf(json({ ...base, phone: 5551234 }))).toEqual([
      'phone: expected string, got number 5551234 (JSON values are not coerced)',
    ]);
    expect(issuesOf(json({ ...base, createdAt: '2024-05-01' }))).toEqual([
      'createdAt: expected an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z), got "2024-05-01"',
    ]);
  });

  it('refuse unknown properties, with a suggestion, at the top level and in address', () => {
    expect(issuesOf(json({ ...base, emial: 'a@b.c', address: { zip: '1' } }))).toEqual([
      "address.zip: unknown property (did you mean zipCode?): the API's upsert item has no such field",
      "emial: unknown property (did you mean email?): the API's upsert item has no such field",
    ]);
  });

  it('keep the memberId of an invalid record, and refuse non-objects', () => {
    expect(json({ memberId: 'j-9' }).memberId).toBe('j-9');
    expect(json({ memberId: 42 }).memberId).toBe('42');
    expect(issuesOf(json([1, 2]))).toEqual(['expected a JSON object (one member), got an array']);
    expect(issuesOf(json('x'))).toEqual(['expected a JSON object (one member), got "x"']);
  });

  it('keep __proto__ keys as data through parsing', () => {
    const raw = JSON.parse(
      '{"memberId":"j","isActive":false,"createdAt":"2024-05-01T12:00:00Z","metadata":{"__proto__":"x"},"customProperties":{"constructor":{"prototype":1}}}',
    );
    const item = itemOf(json(raw));
    expect(JSON.stringify(item)).toBe(JSON.stringify(raw));
    expect(({} as Record<string, unknown>).prototype).toBeUndefined();
  });
});

describe('reader errors', () => {
  it("become invalid candidates with the reader's message", () => {
    const mapper = createRecordMapper('csv', required, { file: FILE });
    const c = mapper.toCandidate({
      record: 3,
      line: 7,
      raw: 'a,b,c,d',
      error: { message: 'row has 4 cells, the header has 3', hint: 'quote cells that contain a comma' },
    });
    expect(c).toMatchObject({ record: 3, line: 7, valid: false, raw: 'a,b,c,d' });
    expect(c.memberId).toBeUndefined();
    expect(issuesOf(c)).toEqual(['row has 4 cells, the header has 3 — quote cells that contain a comma']);
    // cells the reader could split still give the memberId
    const cells = mapper.toCandidate({
      record: 4,
      line: 8,
      raw: [' m-4 ', 'y', 'x', 'surplus'],
      error: { message: 'too many cells' },
    });
    expect(cells.memberId).toBe('m-4');
  });
});
