/**
 * validate on the repository's fixtures, in-process through validateFile (the entry point the command calls):
 * the same items from every format, a mapped CRM export, the rejects files fed back, a broken mapping file.
 * How the command prints them (the summary line, the table, --json, standard input, --help) stays in
 * test/e2e/validate.test.ts.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { validateCategory, validateFile, type ValidateOptions } from '../../src/core/validate/validate-file.js';
import { isMemberctlError } from '../../src/errors.js';
import { helpOf } from '../cli/help-of.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-fixtures-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** `memberctl validate` with these options: its exit code (through the one table) and stats, or the error it stops with. */
async function validate(options: ValidateOptions) {
  try {
    const stats = await validateFile(options);
    return { code: exitCodeFor(validateCategory(stats)), stats };
  } catch (error) {
    if (!isMemberctlError(error)) throw error;
    return { code: exitCodeFor(error.category), error };
  }
}

describe('validateFile on the fixtures (in-process)', () => {
  it('all valid, in every format: the same items whatever the format', async () => {
    const items: Record<string, unknown[]> = {};
    for (const file of ['members.csv', 'members.csv.gz', 'members.json', 'members.ndjson']) {
      const out = join(dir, `${file}.items.ndjson`);
      const r = await validate({ path: `fixtures/${file}`, outputPath: out });
      expect(r.code).toBe(0);
      expect(r.stats).toMatchObject({
        invalid: 0,
        format: file.includes('csv') ? 'csv' : file.replace('members.', ''),
      });
      items[file] = (await readFile(out, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(r.stats!.valid).toBe(items[file]!.length);
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
    const r = await validate({
      path: 'fixtures/crm-export.csv',
      mapFile: 'fixtures/crm-mapping.json',
      outputPath: out,
    });
    expect(r.code).toBe(0);
    expect(r.stats).toMatchObject({ rows: 8, valid: 8, output: { path: out, items: 8 } });
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
    const r = await validate({ path: 'fixtures/crm-export.csv' });
    expect(r.code).toBe(2);
    expect(r.error!.message).toMatch(
      /^fixtures\/crm-export\.csv line 1: unknown columns "Contact ID" \(column 1\), "E-mail Address" \(column 4: did you mean email\?\), .*, and 12 more$/,
    );
    expect(r.error!.hint).toMatch(/^Map it with --map/);
  });

  it('--rejects CSV: the file is fixed and fed back as it is', async () => {
    const rejects = join(dir, 'fix-me.csv');
    const r = await validate({ path: 'fixtures/invalid/mixed.csv', rejectsPath: rejects });
    expect(r.code).toBe(3);
    expect(r.stats!.rejects).toMatchObject({ path: rejects, format: 'csv', records: 5 });
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
    const again = await validate({ path: rejects });
    expect(again.code).toBe(3);
    expect(again.stats).toMatchObject({ rows: 5, valid: 0, invalid: 5 });

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
    const done = await validate({ path: rejects });
    expect(done.code).toBe(0);
    expect(done.stats).toMatchObject({ rows: 5, valid: 5 });
  });

  it('--rejects NDJSON: {record, line, memberId, stage, reason, input}', async () => {
    const rejects = join(dir, 'rejects.ndjson');
    const r = await validate({ path: 'fixtures/invalid/mixed.ndjson', rejectsPath: rejects });
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
    const r = await validate({ path: 'fixtures/invalid/mixed.ndjson', outputPath: out });
    expect(r.code).toBe(3);
    const items = (await readFile(out, 'utf8')).trimEnd().split('\n');
    expect(items).toHaveLength(2);
    expect(items[1]).toBe(
      '{"memberId":"n-6","isActive":true,"createdAt":"2024-01-05T09:00:00Z","metadata":{"__proto__":"data","constructor":"too"},"customProperties":{"prototype":{"x":[1,null]}}}',
    );
  });

  it('a broken mapping file names the file and the key', async () => {
    const map = join(dir, 'bad-map.json');
    await writeFile(map, JSON.stringify({ columns: { 'Contact ID': 'memberid', 'E-mail Address': 'emial' } }));
    const r = await validate({ path: 'fixtures/crm-export.csv', mapFile: map });
    expect(r.code).toBe(2);
    expect(r.error!.message).toBe(
      `mapping file ${map}: columns["E-mail Address"]: unknown field "emial" (did you mean email?)`,
    );
  });

  it('--pad-short-rows applies to CSV input only', async () => {
    const ndjson = join(dir, 'short-rows.ndjson');
    await writeFile(ndjson, '{}\n');
    const wrong = await validate({ path: ndjson, padShortRows: true });
    expect(wrong.code).toBe(2);
    expect(wrong.error!.message).toMatch(/--pad-short-rows applies to CSV input only/);
  });

  it('--help shows real examples', () => {
    const help = helpOf(['validate']);
    expect(help).toContain('memberctl validate crm-export.csv --map crm-mapping.json --rejects fix-me.csv');
    expect(help).toContain('--ignore-unknown-columns');
  });
});
