/** The mapping features through the whole command line (in-process, test/cli/run-in-process.ts): map init's output file, --encoding with a rejects CSV, a workbook's rejects. */
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-mapping-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = isolatedEnv();

describe('map init (CLI)', () => {
  it('writes a mapping validate can use; never over the input, never through a symlink, an existing file only with --force', async () => {
    const input = join(dir, 'export.csv');
    writeFileSync(input, 'Customer Id,Status,Create Date\nC-1,active,2024-01-05 10:00\n');
    const out = join(dir, 'mapping.json');
    const made = await runInProcess(['map', 'init', input, '--out', out], env);
    expect(made.code).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8'));
    expect(written.columns['Customer Id']).toBe('memberId');
    // the local times are a decision: named on stderr, and validate refuses the mapping until it is settled
    expect(made.stderr).toContain('decide: Create Date: "Create Date" holds date-times without an offset');
    expect(made.stderr).toContain(`wrote ${out}: 1 decision to settle`);
    const refused = await runInProcess(['validate', input, '--map', out], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('decisions["Create Date"]: not settled');
    written.columns['Create Date'].timeZone = 'Europe/Oslo';
    delete written.decisions;
    writeFileSync(out, JSON.stringify(written));
    expect((await runInProcess(['validate', input, '--map', out], env)).code).toBe(0);

    const again = await runInProcess(['map', 'init', input, '--out', out], env);
    expect(again.code).toBe(2);
    expect((await runInProcess(['map', 'init', input, '--out', out, '--force'], env)).code).toBe(0);

    const overInput = await runInProcess(['map', 'init', input, '--out', input, '--force'], env);
    expect(overInput.code).toBe(2);
    expect(overInput.stderr).toContain('the input');
    expect(readFileSync(input, 'utf8')).toContain('Customer Id');

    symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'link.json'));
    const link = await runInProcess(['map', 'init', input, '--out', join(dir, 'link.json'), '--force'], env);
    expect(link.code).toBe(2);
    expect(link.stderr).toMatch(/symbolic link|symlink/);
  });

  it('a workbook with Status and Active columns and a date column of real and text dates: the mapping it writes validates every row', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Members');
    sheet.addRow(['Member ID', 'Status', 'Active', 'Joined']);
    sheet.addRow(['M-1', 'active', 'yes', new Date(Date.UTC(2024, 0, 5, 10, 30))]);
    sheet.addRow(['M-2', 'lapsed', 'no', '06.01.2024 11:00']);
    sheet.addRow(['M-3', 'active', 'yes', new Date(Date.UTC(2024, 0, 7))]);
    const input = join(dir, 'members.xlsx');
    await book.xlsx.writeFile(input);
    const out = join(dir, 'members-mapping.json');
    const made = await runInProcess(['map', 'init', input, '--out', out], { ...env, TZ: 'UTC' });
    expect(made.code).toBe(0);
    expect(made.stderr).toContain('note: "Status" → metadata.status [kept]');
    const written = JSON.parse(readFileSync(out, 'utf8'));
    expect(written.columns).toMatchObject({
      Status: 'metadata.status',
      Active: 'isActive',
      Joined: { field: 'createdAt', format: 'dd.MM.yyyy HH:mm', timeZone: 'UTC' },
    });
    expect(Object.keys(written.decisions)).toEqual(['Joined']);
    delete written.decisions;
    writeFileSync(out, JSON.stringify(written));
    const r = await runInProcess(['validate', input, '--map', out, '--json'], env);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, valid: 3, invalid: 0 });
  });

  it("the validate line it advises keeps the flags that read the file (--sheet, --encoding), as the mapping's description does", async () => {
    const input = join(dir, 'latin.csv');
    writeFileSync(input, iconv.encode('Customer Id;Name\nC-1;Ørsted\n', 'windows-1252'));
    const out = join(dir, 'latin-mapping.json');
    const made = await runInProcess(
      ['map', 'init', input, '--out', out, '--encoding', 'windows-1252', '--delimiter', ';'],
      env,
    );
    expect(made.code).toBe(0);
    const advice = `memberctl validate ${input} --encoding windows-1252 --delimiter ';' --map ${out}`;
    expect(made.stderr).toContain(advice);
    expect(JSON.parse(readFileSync(out, 'utf8')).description).toContain(
      `memberctl validate ${input} --encoding windows-1252 --delimiter ';' --map <this file>`,
    );
  });
});

describe('encodings and workbooks (CLI)', () => {
  it('--encoding windows-1252: valid records, and the rejects CSV in windows-1252 as the input was', async () => {
    const input = join(dir, 'excel.csv');
    writeFileSync(
      input,
      iconv.encode(
        'memberId;lastName;isActive;createdAt\r\nm-1;Müller;yes;2024-05-01\r\nm-2;Ørsted;maybe;2024-05-01\r\n',
        'windows-1252',
      ),
    );
    const rejects = join(dir, 'excel-rejects.csv');
    const r = await runInProcess(['validate', input, '--encoding', 'windows-1252', '--rejects', rejects], env);
    expect(r.code).toBe(3);
    const text = iconv.decode(readFileSync(rejects), 'windows-1252');
    expect(text.split('\n')[1]).toBe(
      'm-2;Ørsted;maybe;2024-05-01;invalid;"isActive: expected true/false, yes/no, y/n or 1/0, got ""maybe"""',
    );
    // without the flag, the hint names it
    const plain = await runInProcess(['validate', input], env);
    expect(plain.stderr).toContain('--encoding windows-1252'); // once, as a warning about the file
  });

  it('a mapping file with several mistakes: all of them at once, one line each naming the file, the key and a hint (exit 2)', async () => {
    const input = join(dir, 'for-broken-map.csv');
    writeFileSync(input, 'Id,Mail\nm-1,a@b.c\n');
    const map = join(dir, 'broken-map.json');
    writeFileSync(
      map,
      JSON.stringify({
        columns: { Id: 'memberid', Mail: 'emial', When: { field: 'createdAt', timeZone: 'Europe/Olso' } },
        fields: { isActive: { vlaue: true } },
      }),
    );
    for (const command of [
      ['validate', input, '--map', map],
      ['import', input, '--map', map, '--sandbox'],
    ]) {
      const r = await runInProcess(command, env);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      for (const line of lines)
        expect(line).toMatch(
          new RegExp(
            `^error: mapping file ${map.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (columns|fields)\\["[A-Za-z]+"\\]: .+ — hint: \\S`,
          ),
        );
      expect(lines.map((line) => /: (\w+\["\w+"\])/.exec(line)![1])).toEqual([
        'columns["Mail"]',
        'columns["When"]',
        'fields["isActive"]',
      ]);
    }
    const json = await runInProcess(['validate', input, '--map', map, '--json'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.problems).toHaveLength(3);
  });

  it('a workbook validates with a mapping, and its rejects go to CSV with the original cells', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Customers');
    sheet.addRow(['Customer Id', 'Status', 'Created']);
    sheet.addRow(['C-1', 'active', new Date(Date.UTC(2024, 0, 5, 10, 0))]);
    sheet.addRow(['C-2', 'gone', new Date(Date.UTC(2024, 0, 6, 10, 0))]);
    const input = join(dir, 'customers.xlsx');
    await book.xlsx.writeFile(input);
    const mapping = join(dir, 'xlsx-mapping.json');
    writeFileSync(
      mapping,
      JSON.stringify({
        columns: {
          'Customer Id': 'memberId',
          Status: { field: 'isActive', values: { active: true } },
          Created: { field: 'createdAt', timeZone: 'UTC' },
        },
      }),
    );
    const rejects = join(dir, 'xlsx-rejects.csv');
    const r = await runInProcess(['validate', input, '--map', mapping, '--rejects', rejects, '--json'], env);
    expect(r.code).toBe(3);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ format: 'xlsx', rows: 2, valid: 1, invalid: 1 });
    expect(result.invalidRecords[0]).toMatchObject({ record: 2, line: 3, memberId: 'C-2' });
    expect(readFileSync(rejects, 'utf8').split('\n')[1]).toMatch(
      /^C-2,gone,2024-01-06T10:00:00,invalid,"isActive: ""gone"" is not one of the values/,
    );
  });
});
