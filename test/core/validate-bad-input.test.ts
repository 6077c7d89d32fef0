/**
 * validate on bad input, in-process: a fatal problem is one typed error (exit 2 through the one table) whose one
 * line names the file and the line (cell, sheet) and whose rendering is at most "error: …" plus "hint: …", never a
 * stack; a bad record alone is invalid, naming its line, and every other record is read. What only a process shows
 * (stdout left empty, the exit code itself, --json on an error) stays in test/e2e/validate-bad-input.test.ts.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
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

  for (const csvWorker of ['never', 'always'] as const)
    it(`an unknown column names the header's own line, after blank lines (csvWorker: ${csvWorker}; trial2)`, async () => {
      const path = join(dir, `blank-then-header-${csvWorker}.csv`);
      await writeFile(path, '\n\n  \nmemberId,isActive,createdAt,Shoe Size\nm1,true,2024-01-01T00:00:00Z,42\n');
      await expectFatal({ path, csvWorker, parseAhead: true }, path, /line 4: unknown column "Shoe Size" \(column 4\)/);
    });

  it("a workbook's unknown column names the header's row, after blank rows (trial2)", async () => {
    const path = join(dir, 'blank-rows-then-header.xlsx');
    const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
    const rows =
      `<row r="3">${cell('A3', 'memberId')}${cell('B3', 'Shoe Size')}</row>` +
      `<row r="4">${cell('A4', 'm1')}${cell('B4', '42')}</row>`;
    await writeFile(path, workbookOf({ sheets: [{ name: 'Members', rows }] }));
    await expectFatal({ path }, path, /line 3: unknown column "Shoe Size" \(column 2\)/);
  });

  it('--rejects in a folder that does not exist', async () => {
    const rejectsPath = join(dir, 'nope', 'r.csv');
    await expectFatal({ path: 'fixtures/invalid/mixed.csv', rejectsPath }, rejectsPath, /cannot write rejects file/);
  });

  it('--rejects that cannot be opened after --output was: the --output from before stays as it was', async () => {
    const outputPath = join(dir, 'kept-items.ndjson');
    await validateFile({ path: 'fixtures/invalid/mixed.csv', outputPath });
    const before = readFileSync(outputPath, 'utf8');
    expect(before).not.toBe('');
    const rejectsPath = join(dir, 'nope', 'r.ndjson');
    await expectFatal(
      { path: 'fixtures/invalid/mixed.csv', outputPath, rejectsPath },
      rejectsPath,
      /cannot write rejects file/,
    );
    expect(readFileSync(outputPath, 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((file) => file.startsWith('.kept-items') && file.includes('tmp'))).toEqual([]);
  });

  it('a bad --limit or --delimiter', async () => {
    const file = 'fixtures/invalid/mixed.csv';
    await expectFatal(() => inputOptionsFrom(file, { limit: '0' }), '--limit', /at least 1/);
    await expectFatal(() => inputOptionsFrom(file, { delimiter: ';;' }), '--delimiter', /one character/);
  });

  it('a misspelt MEMBERCTL_CSV_WORKER or heap size is refused, not read as the default', async () => {
    const file = 'fixtures/invalid/mixed.csv';
    const env = (vars: NodeJS.ProcessEnv) => () => inputOptionsFrom(file, {}, vars);
    await expectFatal(env({ MEMBERCTL_CSV_WORKER: 'nevr' }), 'MEMBERCTL_CSV_WORKER', /always, never or auto/);
    await expectFatal(env({ MEMBERCTL_CSV_WORKER_HEAP_MB: '64MB' }), 'MEMBERCTL_CSV_WORKER_HEAP_MB', /whole number/);
    expect(inputOptionsFrom(file, {}, { MEMBERCTL_CSV_WORKER: '' }).csvWorker).toBe('auto');
    expect(inputOptionsFrom(file, {}, { MEMBERCTL_CSV_WORKER: 'never' }).csvWorker).toBe('never');
    expect(inputOptionsFrom(file, {}, { MEMBERCTL_CSV_WORKER_HEAP_MB: '64' }).csvWorkerHeapMb).toBe(64);
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

describe('an input that breaks midway puts neither --output nor --rejects in place (docs/safety.md#outputs)', () => {
  const rows = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `m-${from + i},${(from + i) % 5 ? 'true' : 'maybe'},2024-05-01\n`).join('');
  const header = 'memberId,isActive,createdAt\n';

  /** Last night's files, written by a good run (so memberctl's own), then the same paths given to `options`. */
  async function lastNight(name: string): Promise<{ outputPath: string; rejectsPath: string; before: string[] }> {
    const good = join(dir, `${name}-good.csv`);
    await writeFile(good, header + rows(1, 10));
    const outputPath = join(dir, `${name}-items.ndjson`);
    const rejectsPath = join(dir, `${name}-rejects.ndjson`);
    await validateFile({ path: good, outputPath, rejectsPath });
    const before = [readFileSync(outputPath, 'utf8'), readFileSync(rejectsPath, 'utf8')];
    expect(before[0]).toContain('"m-1"');
    expect(before[1]).toContain('"m-5"');
    return { outputPath, rejectsPath, before };
  }

  async function expectUntouched(name: string, path: string, named: string, pattern: RegExp) {
    const { outputPath, rejectsPath, before } = await lastNight(name);
    await expectFatal({ path, outputPath, rejectsPath }, named, pattern);
    expect([readFileSync(outputPath, 'utf8'), readFileSync(rejectsPath, 'utf8')]).toEqual(before);
    expect((await readdir(dir)).filter((file) => file.startsWith(`.${name}-`) && file.includes('tmp'))).toEqual([]);
  }

  it('a truncated gzip: the files from before stay as they were, and no temp file is left', async () => {
    const path = join(dir, 'cut.csv.gz');
    const whole = gzipSync(header + rows(100, 20_000));
    await writeFile(path, whole.subarray(0, Math.floor(whole.length / 2)));
    await expectUntouched('gz', path, path, /gzip data ends early/);
  });

  it('a JSON array cut half way: the same', async () => {
    const path = join(dir, 'half.json');
    const record = (i: number) =>
      `{"memberId":"j-${i}","isActive":${i % 5 ? 'true' : '"maybe"'},"createdAt":"2024-05-01"}`;
    await writeFile(
      path,
      `[\n${Array.from({ length: 50 }, (_, i) => record(i)).join(',\n')},\n{"memberId":"j-50","isActive":tr`,
    );
    await expectUntouched('json', path, path, /line 52: .*truncated/);
  });

  it('a run that reads to the end replaces them', async () => {
    const { outputPath, rejectsPath, before } = await lastNight('whole');
    const path = join(dir, 'whole-next.csv');
    await writeFile(path, header + rows(20, 10));
    await validateFile({ path, outputPath, rejectsPath });
    expect(readFileSync(outputPath, 'utf8')).not.toBe(before[0]);
    expect(readFileSync(rejectsPath, 'utf8')).toContain('"m-20"');
  });
});
