/**
 * validate end to end: the whole command line on fixtures (in-process), as a user runs it — the summary line, the table, --json, standard
 * input, exit codes. What the records become (items in every format, the mapped CRM export, the rejects files fed
 * back, a broken mapping) is tested in-process in test/core/validate-fixtures.test.ts.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const env = isolatedEnv();
const validate = (...args: string[]) => runInProcess(['validate', ...args], env);
let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('memberctl validate', () => {
  it('all valid: exit 0, a one-line summary, nothing on stderr', async () => {
    const out = join(dir, 'members.items.ndjson');
    const r = await validate('fixtures/members.csv', '--output', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fixtures\/members\.csv: (\d+) records, \1 valid \(csv, /);
    expect(r.stdout).toContain(`Wrote `);
    expect(r.stdout).toContain(` items to ${out}`);
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

  it('--rejects: says where the rejected records went', async () => {
    const rejects = join(dir, 'fix-me.csv');
    const r = await validate('fixtures/invalid/mixed.csv', '--rejects', rejects);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`Wrote 5 rejected records to ${rejects}`);
    expect((await stat(rejects)).mode & 0o777).toBe(0o600);
  });

  it('reads standard input with --format, and --limit stops early', async () => {
    const csv = await readFile('fixtures/invalid/mixed.csv', 'utf8');
    const r = await runInProcess(['validate', '-', '--format', 'csv', '--limit', '1', '--json'], env, csv);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, valid: 1, invalid: 0 });
  });

  it('--pad-short-rows: the human summary and --json count the padded rows', async () => {
    const path = join(dir, 'short-rows.csv');
    await writeFile(path, 'memberId,isActive,createdAt,metadata.tier\nm1,true,2024-01-01,Gold\nm2,true,2024-01-01\n');
    const human = await validate(path, '--pad-short-rows');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      '1 row padded (--pad-short-rows): fewer cells than the header, the missing trailing ones read as empty',
    );
    const json = await validate(path, '--pad-short-rows', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 2, valid: 2, invalid: 0, paddedRows: 1 });
  });
});
