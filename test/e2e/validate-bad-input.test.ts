/** Bad input: a specific one-line error with file and line (exit 2), or the bad record alone invalid (exit 3); never a stack trace. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workbookOf } from '../io/xlsx-helpers.js';
import { isolatedEnv, runCli, type RunResult } from './config-cli-helper.js';

const env = isolatedEnv();
const validate = (...args: string[]) => runCli(['validate', ...args], env);
let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-bad-input-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

function expectNoStack(r: RunResult): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain('internal error');
}

/** Exit 2, stdout empty, stderr = "error: ..." naming the file (and a line when asked) + at most a hint line. */
function expectFatal(r: RunResult, file: string, pattern: RegExp): void {
  expectNoStack(r);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(pattern);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
}

/** Exit 3: the bad record is invalid with a message naming its line; every other record was read and is valid. */
async function expectOnlyRecordInvalid(file: string, record: number, line: number, pattern: RegExp, total: number) {
  const r = await validate(file, '--json');
  expectNoStack(r);
  expect(r.code).toBe(3);
  const result = JSON.parse(r.stdout);
  expect(result).toMatchObject({ rows: total, valid: total - 1, invalid: 1 });
  expect(result.invalidRecords[0]).toMatchObject({ record, line });
  expect(result.invalidRecords[0].issues.map((i: { message: string }) => i.message).join('; ')).toMatch(pattern);
}

describe('validate on bad input', () => {
  it('an empty file', async () => {
    expectFatal(await validate('fixtures/invalid/empty.csv'), 'fixtures/invalid/empty.csv', /empty/i);
  });

  it('a header-only CSV: nothing invalid, but a warning naming the file and line', async () => {
    const r = await validate('fixtures/invalid/header-only.csv');
    expectNoStack(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('fixtures/invalid/header-only.csv: 0 records, 0 valid');
    expect(r.stderr.trimEnd()).toBe(
      'warning: fixtures/invalid/header-only.csv line 1: a header and no records: nothing to validate',
    );
  });

  it('duplicate headers', async () => {
    expectFatal(
      await validate('fixtures/invalid/duplicate-headers.csv'),
      'fixtures/invalid/duplicate-headers.csv',
      /line 1.*email/i,
    );
  });

  it('a row with more cells than the header: only that record is invalid', async () => {
    await expectOnlyRecordInvalid(
      'fixtures/invalid/too-many-cells.csv',
      2,
      3,
      /the row has 4 cells but the header has 3/,
      3,
    );
  });

  it('invalid UTF-8: only that record is invalid', async () => {
    await expectOnlyRecordInvalid(
      'fixtures/invalid/invalid-utf8.csv',
      2,
      3,
      /not valid UTF-8 \(byte 0xF6 on line 3\)/,
      3,
    );
  });

  it('a truncated JSON array: a clear error with the line; with --json stdout stays one JSON object', async () => {
    expectFatal(
      await validate('fixtures/invalid/truncated.json'),
      'fixtures/invalid/truncated.json',
      /line 3: .*truncated/,
    );
    const r = await validate('fixtures/invalid/truncated.json', '--json');
    expect(r.code).toBe(2);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      file: 'fixtures/invalid/truncated.json',
      invalidRecords: [],
      rows: 1,
      valid: 1,
      invalid: 0,
      error: { code: expect.any(String), message: expect.stringContaining('line 3') },
    });
    expect(r.stderr).toMatch(/^error: fixtures\/invalid\/truncated\.json line 3/);
  });

  it('a JSON file whose top level is not an array', async () => {
    expectFatal(await validate('fixtures/invalid/not-array.json'), 'fixtures/invalid/not-array.json', /line 1.*array/i);
  });

  it('a 10 MB cell: that record is invalid (too long), the others are read', async () => {
    const path = join(dir, 'huge-cell.csv');
    await writeFile(
      path,
      `memberId,firstName,isActive,createdAt\nm-1,Ann,true,2024-05-01\nm-2,${'x'.repeat(10 * 1024 * 1024)},true,2024-05-01\nm-3,Cleo,false,2024-05-01\n`,
    );
    await expectOnlyRecordInvalid(path, 2, 3, /^must be at most 64 characters, got 10485760$/, 3);
    const r = await validate(path, '--json');
    expect(r.stdout.length).toBeLessThan(10_000);
  });

  it("a record over the reader's 16 MB limit (a quote never closed): one line naming file and line", async () => {
    const path = join(dir, 'runaway.csv');
    await writeFile(
      path,
      `memberId,firstName,isActive,createdAt\nm-1,Ann,true,2024-05-01\nm-2,"${'x'.repeat(17 * 1024 * 1024)},true,2024-05-01\n`,
    );
    expectFatal(await validate(path), path, /line 3: .*16 MB/);
  });

  it('a missing file', async () => {
    expectFatal(
      await validate('fixtures/no-such-file.csv'),
      'fixtures/no-such-file.csv',
      /not found|no such file|does not exist/i,
    );
  });

  it('a directory', async () => {
    expectFatal(await validate('fixtures'), 'fixtures', /directory/i);
  });

  it('an unknown column', async () => {
    expectFatal(
      await validate('fixtures/invalid/unknown-column.csv'),
      'fixtures/invalid/unknown-column.csv',
      /line 1: unknown column "E-mail Address" \(column 2: did you mean email\?\)/,
    );
  });

  it('--rejects in a folder that does not exist', async () => {
    const r = await validate('fixtures/invalid/mixed.csv', '--rejects', join(dir, 'nope', 'r.csv'));
    expectFatal(r, join(dir, 'nope', 'r.csv'), /cannot write rejects file/);
  });

  it('a bad --limit, --delimiter or --show', async () => {
    expectFatal(await validate('fixtures/invalid/mixed.csv', '--limit', '0'), '--limit', /at least 1/);
    expectFatal(await validate('fixtures/invalid/mixed.csv', '--delimiter', ';;'), '--delimiter', /one character/);
    expectFatal(await validate('fixtures/invalid/mixed.csv', '--show', 'all'), '--show', /whole number/);
  });
  describe('a workbook', () => {
    const HEAD =
      '<row r="1"><c r="A1" t="inlineStr"><is><t>memberId</t></is></c><c r="B1" t="inlineStr"><is><t>isActive</t></is></c>' +
      '<c r="C1" t="inlineStr"><is><t>createdAt</t></is></c></row>';
    const member = (n: number, id: string) =>
      `<row r="${n}">${id}<c r="B${n}" t="b"><v>1</v></c><c r="C${n}" t="str"><v>2024-01-01T00:00:00Z</v></c></row>`;

    it('a shared string past the end of the table: exit 2, one line naming the sheet and cell', async () => {
      const path = join(dir, 'truncated.xlsx');
      const rows = HEAD + member(2, '<c r="A2" t="s"><v>0</v></c>') + member(3, '<c r="A3" t="s"><v>3</v></c>');
      await writeFile(path, workbookOf({ sheets: [{ name: 'Members', rows }], strings: ['<t>m-1</t>'] }));
      const r = await validate(path);
      expectFatal(r, path, /sheet "Members" cell A3 refers to shared string 3, but the workbook's table holds 1$/);
    });

    it('a formula with no saved value: only that record is invalid, naming the cell, with the way out', async () => {
      const path = join(dir, 'formula.xlsx');
      const rows =
        HEAD + member(2, '<c r="A2" t="inlineStr"><is><t>m-1</t></is></c>') + member(7, '<c r="A7"><f>A2</f></c>');
      await writeFile(path, workbookOf({ sheets: [{ name: 'Members', rows }] }));
      await expectOnlyRecordInvalid(
        path,
        2,
        7,
        /cell A7 is a formula with no saved value — .*open and save it in Excel/,
        2,
      );
    });
  });
});
