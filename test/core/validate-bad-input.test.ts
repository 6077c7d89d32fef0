/**
 * validate on bad input, in-process: a fatal problem is one typed error (exit 2 through the one table) whose one
 * line names the file and the line (cell, sheet) and whose rendering is at most "error: …" plus "hint: …", never a
 * stack; a bad record alone is invalid, naming its line, and every other record is read. What only a process shows
 * (stdout left empty, the exit code itself, --json on an error) stays in test/e2e/validate-bad-input.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { inputOptionsFrom } from '../../src/cli/input-options.js';
import { renderError, type Output } from '../../src/cli/output.js';
import { validateCategory, validateFile, type ValidateOptions } from '../../src/core/validate/validate-file.js';
import { isMemberctlError } from '../../src/errors.js';
import { workbookOf } from '../io/xlsx-helpers.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-bad-input-core-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The lines renderError writes to stderr for `error`, as the entry point would, with no color. */
function rendered(error: unknown): string[] {
  const lines: string[] = [];
  const output: Output = {
    color: new Chalk({ level: 0 }),
    out: (text) => void lines.push(`stdout: ${text}`),
    err: (text) => void lines.push(text),
    warn: (text) => void lines.push(`warning: ${text}`),
    stderrIsTTY: false,
  };
  renderError(error, output);
  return lines;
}

/** The error validate stops with, checked as the CLI would report it: exit 2, one line naming `named`, a hint. */
async function expectFatal(options: ValidateOptions | (() => unknown), named: string, pattern: RegExp) {
  let error: unknown;
  try {
    await (typeof options === 'function' ? options() : validateFile(options));
  } catch (caught) {
    error = caught;
  }
  expect(isMemberctlError(error), String(error)).toBe(true);
  expect(exitCodeFor(isMemberctlError(error) ? error.category : 'internal')).toBe(2);
  const lines = rendered(error);
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toContain(named);
  expect(lines[0]).toMatch(pattern);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(lines.join('\n')).not.toMatch(/^\s+at /m);
}

/** Exit 3: the bad record is invalid with a message naming its line; every other record was read and is valid. */
async function expectOnlyRecordInvalid(path: string, record: number, line: number, pattern: RegExp, total: number) {
  const stats = await validateFile({ path });
  expect(exitCodeFor(validateCategory(stats))).toBe(3);
  expect(stats).toMatchObject({ rows: total, valid: total - 1, invalid: 1 });
  expect(stats.sample[0]).toMatchObject({ record, line });
  expect(stats.sample[0]!.issues.map((i) => i.message).join('; ')).toMatch(pattern);
  return stats;
}

describe('validate on bad input (in-process)', () => {
  it('an empty file', async () => {
    await expectFatal({ path: 'fixtures/invalid/empty.csv' }, 'fixtures/invalid/empty.csv', /empty/i);
  });

  it('a header-only CSV: nothing invalid, but a warning naming the file and line', async () => {
    const warnings: string[] = [];
    const stats = await validateFile({ path: 'fixtures/invalid/header-only.csv' }, (event) => {
      if (event.type === 'warning') warnings.push(event.message);
    });
    expect(stats).toMatchObject({ rows: 0, valid: 0, invalid: 0 });
    expect(warnings).toEqual(['fixtures/invalid/header-only.csv line 1: a header and no records: nothing to validate']);
  });

  it('duplicate headers', async () => {
    await expectFatal(
      { path: 'fixtures/invalid/duplicate-headers.csv' },
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

  it('a truncated JSON array: a clear error with the line', async () => {
    await expectFatal(
      { path: 'fixtures/invalid/truncated.json' },
      'fixtures/invalid/truncated.json',
      /line 3: .*truncated/,
    );
  });

  it('a JSON file whose top level is not an array', async () => {
    await expectFatal({ path: 'fixtures/invalid/not-array.json' }, 'fixtures/invalid/not-array.json', /line 1.*array/i);
  });

  it('a 10 MB cell: that record is invalid (too long), the others are read, and the sample stays small', async () => {
    const path = join(dir, 'huge-cell.csv');
    await writeFile(
      path,
      `memberId,firstName,isActive,createdAt\nm-1,Ann,true,2024-05-01\nm-2,${'x'.repeat(10 * 1024 * 1024)},true,2024-05-01\nm-3,Cleo,false,2024-05-01\n`,
    );
    const stats = await expectOnlyRecordInvalid(path, 2, 3, /^must be at most 64 characters, got 10485760$/, 3);
    expect(JSON.stringify(stats).length).toBeLessThan(10_000);
  });

  it("a record over the reader's 16 MB limit (a quote never closed): one line naming file and line", async () => {
    const path = join(dir, 'runaway.csv');
    await writeFile(
      path,
      `memberId,firstName,isActive,createdAt\nm-1,Ann,true,2024-05-01\nm-2,"${'x'.repeat(17 * 1024 * 1024)},true,2024-05-01\n`,
    );
    await expectFatal({ path }, path, /line 3: .*16 MB/);
  });

  it('a missing file', async () => {
    await expectFatal(
      { path: 'fixtures/no-such-file.csv' },
      'fixtures/no-such-file.csv',
      /not found|no such file|does not exist/i,
    );
  });

  it('a directory', async () => {
    await expectFatal({ path: 'fixtures' }, 'fixtures', /directory/i);
  });

  it('an unknown column', async () => {
    await expectFatal(
      { path: 'fixtures/invalid/unknown-column.csv' },
      'fixtures/invalid/unknown-column.csv',
      /line 1: unknown column "E-mail Address" \(column 2: did you mean email\?\)/,
    );
  });

  it('--rejects in a folder that does not exist', async () => {
    const rejectsPath = join(dir, 'nope', 'r.csv');
    await expectFatal({ path: 'fixtures/invalid/mixed.csv', rejectsPath }, rejectsPath, /cannot write rejects file/);
  });

  it('a bad --limit or --delimiter', async () => {
    const file = 'fixtures/invalid/mixed.csv';
    await expectFatal(() => inputOptionsFrom(file, { limit: '0' }), '--limit', /at least 1/);
    await expectFatal(() => inputOptionsFrom(file, { delimiter: ';;' }), '--delimiter', /one character/);
  });

  describe('a workbook', () => {
    const HEAD =
      '<row r="1"><c r="A1" t="inlineStr"><is><t>memberId</t></is></c><c r="B1" t="inlineStr"><is><t>isActive</t></is></c>' +
      '<c r="C1" t="inlineStr"><is><t>createdAt</t></is></c></row>';
    const member = (n: number, id: string) =>
      `<row r="${n}">${id}<c r="B${n}" t="b"><v>1</v></c><c r="C${n}" t="str"><v>2024-01-01T00:00:00Z</v></c></row>`;

    it('a shared string past the end of the table: one line naming the sheet and cell', async () => {
      const path = join(dir, 'truncated.xlsx');
      const rows = HEAD + member(2, '<c r="A2" t="s"><v>0</v></c>') + member(3, '<c r="A3" t="s"><v>3</v></c>');
      await writeFile(path, workbookOf({ sheets: [{ name: 'Members', rows }], strings: ['<t>m-1</t>'] }));
      await expectFatal(
        { path },
        path,
        /sheet "Members" cell A3 refers to shared string 3, but the workbook's table holds 1$/,
      );
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
