/** validate end to end: the built CLI on fixtures, as a user runs it. */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { isolatedEnv, runCli } from './config-cli-helper.js';

const env = isolatedEnv();
const validate = (...args: string[]) => runCli(['validate', ...args], env);
let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('memberctl validate', () => {
  it('all valid, in every format: exit 0, a one-line summary, and the same items whatever the format', async () => {
    const items: Record<string, unknown[]> = {};
    for (const file of ['members.csv', 'members.csv.gz', 'members.json', 'members.ndjson']) {
      const out = join(dir, `${file}.items.ndjson`);
      const r = await validate(`fixtures/${file}`, '--output', out);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^fixtures/${file.replaceAll('.', '\\.')}: (\\d+) records, \\1 valid \\((csv|json|ndjson), `),
      );
      items[file] = (await readFile(out, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    }
    // a CSV date is sent as written or, when plain, as midnight UTC: compare instants, not spellings
    const instants = (list: unknown[]) =>
      JSON.parse(
        JSON.stringify(list, (key, value) =>
          key === 'birthdate' || key === 'createdAt' ? Date.parse(value as string) : value,
        ),
      );
    expect(items['members.csv.gz']).toEqual(items['members.csv']);
    expect(items['members.ndjson']).toEqual(items['members.json']);
    expect(instants(items['members.csv']!)).toEqual(instants(items['members.json']!));
    expect(items['members.csv']!.length).toBeGreaterThan(5);
  });

  it('the CRM export validates with its mapping, and --output holds the exact items', async () => {
    const out = join(dir, 'crm-items.ndjson');
    const r = await validate('fixtures/crm-export.csv', '--map', 'fixtures/crm-mapping.json', '--output', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('fixtures/crm-export.csv: 8 records, 8 valid');
    expect(r.stdout).toContain(`Wrote 8 items to ${out}`);
    const items = (await readFile(out, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items[0]).toEqual({
      memberId: '0031X00000aBcDe',
      firstName: 'Ingrid',
      lastName: 'Halvorsen',
      email: 'ingrid.halvorsen@example.no',
      phone: '+47 912 34 567',
      birthdate: '1984-07-19T00:00:00.000Z',
      address: {
        addressLine1: 'Storgata 12',
        addressLine2: 'H0302',
        city: 'Oslo',
        region: 'Oslo',
        zipCode: '0155',
        countryCode: 'NO',
      },
      isActive: true,
      isEmployee: false,
      createdAt: '2019-03-04T10:22:00Z',
      metadata: { lifecycleStage: 'customer' },
      customProperties: { leadScore: 82 },
    });
    expect(items.map((i) => i.memberId)).toEqual([
      '0031X00000aBcDe',
      '0031X00000aBcDf',
      '0031X00000aBcDg',
      '0031X00000aBcDh',
      '0031X00000aBcDi',
      '0031X00000aBcDj',
      '0031X00000aBcDk',
      '0031X00000aBcDl',
    ]);
    expect(items[3]).not.toHaveProperty('customProperties');
    expect(JSON.stringify(items)).not.toContain('churned');
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  });

  it('without its mapping, the CRM export is refused before any row: header, column and suggestion', async () => {
    const r = await validate('fixtures/crm-export.csv');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const [error, hint, ...rest] = r.stderr.trimEnd().split('\n');
    expect(error).toMatch(
      /^error: fixtures\/crm-export\.csv line 1: unknown columns "Contact ID" \(column 1\), "E-mail Address" \(column 4: did you mean email\?\), .*, and 12 more$/,
    );
    expect(hint).toMatch(/^hint: Map it with --map/);
    expect(rest).toEqual([]);
  });

  it('invalid records: exit 3, a table with record, line, memberId and every issue, and a summary', async () => {
    const r = await validate('fixtures/invalid/mixed.csv');
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Invalid records in fixtures/invalid/mixed.csv:');
    expect(r.stdout).toMatch(/ 2 +3 +m-0002 +isActive: expected true\/false, yes\/no, y\/n or 1\/0, got "maybe"/);
    expect(r.stdout).toMatch(/ 3 +4 +m-0003 +address\.countryCode: must be at most 2 characters, got 6/);
    expect(r.stdout).toMatch(/^ +createdAt: expected an ISO 8601 date-time .*got "05\/01\/2024"$/m);
    expect(r.stdout).toMatch(/ 4 +5 +- +memberId: required/);
    expect(r.stdout).toMatch(
      / 5 +6 +m-0005-this-member-id-is-much-lo\S*… +memberId: must be at most 36 characters, got 44/,
    );
    expect(r.stdout).toMatch(/ 6 +7 +m-0006 +birthdate: .*got "1985-13-01"\n +isActive: required/);
    expect(r.stdout).toContain('fixtures/invalid/mixed.csv: 7 records, 2 valid, 5 invalid (csv, ');
    expect(r.stdout).toContain('--rejects fix-me.csv');
  });

  it('--show caps the table and says how many more', async () => {
    const r = await validate('fixtures/invalid/mixed.csv', '--show', '2');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('… and 3 more invalid records: list them all with --rejects fix-me.csv, or --json');
    expect(r.stdout).toContain('Most common reasons:');
  });

  it('--json: one object with counts and every invalid record', async () => {
    const r = await validate('fixtures/invalid/mixed.csv', '--json');
    expect(r.code).toBe(3);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      file: 'fixtures/invalid/mixed.csv',
      format: 'csv',
      rows: 7,
      valid: 2,
      invalid: 5,
      output: null,
      rejects: null,
    });
    expect(result.invalidRecords).toHaveLength(5);
    expect(result.invalidRecords[0]).toEqual({
      record: 2,
      line: 3,
      memberId: 'm-0002',
      issues: [
        { path: 'isActive', message: 'expected true/false, yes/no, y/n or 1/0, got "maybe"', rule: 'not a boolean' },
      ],
    });
    expect(result.invalidRecords[2]).toMatchObject({
      record: 4,
      line: 5,
      memberId: null,
      issues: [{ path: 'memberId', message: 'required' }],
    });
    expect(result.reasons[0]).toEqual({ reason: expect.any(String), count: expect.any(Number) });
    expect(typeof result.durationMs).toBe('number');
  });

  it('--json with all valid records: an empty invalidRecords list', async () => {
    const r = await validate('fixtures/crm-export.csv', '--map', 'fixtures/crm-mapping.json', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 8, valid: 8, invalid: 0, invalidRecords: [] });
  });

  it('--rejects CSV: the file is fixed and fed back as it is', async () => {
    const rejects = join(dir, 'fix-me.csv');
    const r = await validate('fixtures/invalid/mixed.csv', '--rejects', rejects);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`Wrote 5 rejected records to ${rejects}`);
    expect((await stat(rejects)).mode & 0o777).toBe(0o600);
    const rows = parse(await readFile(rejects, 'utf8')) as string[][];
    expect(rows[0]).toEqual([
      'memberId',
      'email',
      'firstName',
      'isActive',
      'createdAt',
      'birthdate',
      'address.countryCode',
      'metadata.tier',
      'stage',
      'error',
    ]);
    expect(rows[1]).toEqual([
      'm-0002',
      'bjorn@example',
      'Björn',
      'maybe',
      '2024-01-05T09:00:00Z',
      '',
      'SE',
      '',
      'invalid',
      'isActive: expected true/false, yes/no, y/n or 1/0, got "maybe"',
    ]);
    expect(rows).toHaveLength(6);

    // as is, it is read back (stage and error ignored) and the same records are still invalid
    const again = await validate(rejects, '--json');
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 5, valid: 0, invalid: 5 });

    // fixed by hand (here: by code), the same file validates
    const fixes: Record<string, (row: string[]) => void> = {
      'm-0002': (row) => (row[3] = 'yes'),
      'm-0003': (row) => ((row[4] = '2024-01-05'), (row[6] = 'SE')),
      '': (row) => (row[0] = 'm-0004'),
      'm-0005-this-member-id-is-much-longer-than-36': (row) => (row[0] = 'm-0005'),
      'm-0006': (row) => ((row[3] = 'no'), (row[5] = '1985-12-01')),
    };
    const fixed = rows.map((row, i) => (i === 0 ? row : (fixes[row[0]!]!(row), row)));
    const quote = (c: string) => (/[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
    await writeFile(rejects, fixed.map((row) => row.map(quote).join(',')).join('\n') + '\n');
    const done = await validate(rejects);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('5 records, 5 valid');
  });

  it('--rejects NDJSON: {record, line, memberId, stage, reason, input}', async () => {
    const rejects = join(dir, 'rejects.ndjson');
    const r = await validate('fixtures/invalid/mixed.ndjson', '--rejects', rejects, '--json');
    expect(r.code).toBe(3);
    const lines = (await readFile(rejects, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.record)).toEqual([2, 3, 4, 5]);
    expect(lines[0]).toEqual({
      record: 2,
      line: 2,
      memberId: 'n-2',
      stage: 'invalid',
      reason: 'isActive: expected boolean, got string "yes" (JSON values are not coerced)',
      input: { memberId: 'n-2', isActive: 'yes', createdAt: '2024-01-05T09:00:00Z' },
    });
    expect(lines[1].reason).toContain('emial: unknown property (did you mean email?)');
    expect(lines[1].reason).toContain('createdAt: expected an ISO 8601 date-time');
    expect(lines[2]).toMatchObject({
      record: 4,
      line: 4,
      memberId: null,
      reason: 'expected a JSON object (one member), got an array',
    });
    expect(lines[3]).toMatchObject({ record: 5, line: 6 });
    expect(lines[3].reason).toContain('address.zip: unknown property (did you mean zipCode?)');
    expect(lines[3].reason).toContain('metadata.tier: expected string, got number 1 (JSON values are not coerced)');
    expect((await stat(rejects)).mode & 0o777).toBe(0o600);
  });

  it('JSON keys __proto__ and constructor are data: they reach --output unchanged', async () => {
    const out = join(dir, 'proto.ndjson');
    const r = await validate('fixtures/invalid/mixed.ndjson', '--output', out);
    expect(r.code).toBe(3);
    const items = (await readFile(out, 'utf8')).trimEnd().split('\n');
    expect(items).toHaveLength(2);
    expect(items[1]).toBe(
      '{"memberId":"n-6","isActive":true,"createdAt":"2024-01-05T09:00:00Z","metadata":{"__proto__":"data","constructor":"too"},"customProperties":{"prototype":{"x":[1,null]}}}',
    );
  });

  it('--rejects CSV for JSON input is refused up front', async () => {
    const r = await validate('fixtures/invalid/mixed.ndjson', '--rejects', join(dir, 'x.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a CSV rejects file needs CSV input');
  });

  it('reads standard input with --format, and --limit stops early', async () => {
    const csv = await readFile('fixtures/invalid/mixed.csv', 'utf8');
    const r = await runCli(['validate', '-', '--format', 'csv', '--limit', '1', '--json'], env, csv);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, valid: 1, invalid: 0 });
  });

  it('a broken mapping file names the file and the key', async () => {
    const map = join(dir, 'bad-map.json');
    await writeFile(map, JSON.stringify({ columns: { 'Contact ID': 'memberid', 'E-mail Address': 'emial' } }));
    const r = await validate('fixtures/crm-export.csv', '--map', map);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: mapping file ${map}: columns["E-mail Address"]: unknown field "emial" (did you mean email?)`,
    );
  });

  it('--help shows real examples', async () => {
    const r = await validate('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('memberctl validate crm-export.csv --map crm-mapping.json --rejects fix-me.csv');
    expect(r.stdout).toContain('--ignore-unknown-columns');
  });

  it('--pad-short-rows: the human summary and --json count the padded rows; without it a short row is invalid', async () => {
    const path = join(dir, 'short-rows.csv');
    await writeFile(path, 'memberId,isActive,createdAt,metadata.tier\nm1,true,2024-01-01,Gold\nm2,true,2024-01-01\n');
    const refused = await validate(path, '--show', '0');
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/2 records, 1 valid, 1 invalid/);
    const human = await validate(path, '--pad-short-rows');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      '1 row padded (--pad-short-rows): fewer cells than the header, the missing trailing ones read as empty',
    );
    const json = await validate(path, '--pad-short-rows', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 2, valid: 2, invalid: 0, paddedRows: 1 });
    const ndjson = join(dir, 'short-rows.ndjson');
    await writeFile(ndjson, '{}\n');
    const wrong = await validate(ndjson, '--pad-short-rows');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--pad-short-rows applies to CSV input only/);
  });
});
