/** Encodings through the whole command line, in-process (test/cli/run-in-process.ts): input that is not UTF-8 is said once per file (every record in one bucket); a rejects CSV reads back as the input did. */
import iconv from 'iconv-lite';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bucketSum, HEADER, isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = isolatedEnv();

/** Excel's "CSV" on Windows: windows-1252. Rows 2, 4 and 6 hold an accent; the others are plain ASCII. */
function excelCsv(name: string, extra = ''): { path: string; offset: number } {
  const lines = [HEADER];
  for (let r = 1; r <= 6; r++)
    lines.push(`m${r},m${r}@example.com,${r % 2 === 0 ? 'Ren\u00e9' : 'Rene'}${r},true,2024-01-05T09:00:00Z`);
  const text = `${lines.join('\n')}\n${extra}`;
  const path = join(dir, name);
  writeFileSync(path, iconv.encode(text, 'windows-1252'));
  return { path, offset: text.indexOf('\u00e9') };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('input that is not UTF-8, read without --encoding', () => {
  it('validate: each affected record is invalid once; the file, first line, byte offset and --encoding hint come once', async () => {
    const { path, offset } = excelCsv('excel.csv');
    const r = await runInProcess(['validate', path], env);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`${path}: 6 records, 3 valid, 3 invalid`);
    expect(count(`${r.stdout}${r.stderr}`, '--encoding windows-1252')).toBe(1);
    const warning = r.stderr.split('\n').filter((line) => line.includes('--encoding'));
    expect(warning).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: ${path} is not UTF-8: line 3 has byte 0xE9 at byte offset ${offset} \\(the first of 3 records`,
        ),
      ),
    ]);
    const json = JSON.parse((await runInProcess(['validate', path, '--json'], env)).stdout);
    expect(json).toMatchObject({ rows: 6, valid: 3, invalid: 3, reasons: [{ reason: 'not valid UTF-8', count: 3 }] });
    expect(json.invalidRecords.map((i: { line: number }) => i.line)).toEqual([3, 5, 7]);
  });

  it('import --sandbox: the same one warning, the affected records invalid, the others imported, the buckets add up', async () => {
    const { path } = excelCsv('excel-import.csv');
    const r = await runInProcess(['import', path, '--sandbox', '--json', '--no-journal'], env);
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ rows: 6, invalid: 3, importedCount: 3 });
    expect(bucketSum(report)).toBe(6);
    expect(count(r.stderr, '--encoding windows-1252')).toBe(1);
    expect(r.stderr).toContain(`${path} is not UTF-8: line 3 has byte 0xE9`);
    const human = await runInProcess(['import', path, '--sandbox', '--no-journal'], env);
    expect(human.stdout).toMatch(/invalid\s+3\s+not valid UTF-8/);
    // a run that stops before the end says it too, about what it read
    const limited = await runInProcess(['import', path, '--sandbox', '--no-journal', '--limit', '4', '--json'], env);
    expect(JSON.parse(limited.stdout)).toMatchObject({ rows: 4, invalid: 2, importedCount: 2 });
    expect(count(limited.stderr, '--encoding windows-1252')).toBe(1);
    expect(limited.stderr).toContain('(the first of 2 records with such bytes');
  });

  it('a file that mixes UTF-8 and another encoding is named so, without an --encoding that would garble its UTF-8', async () => {
    const { path } = excelCsv('mixed.csv');
    writeFileSync(
      path,
      Buffer.concat([
        iconv.encode(`${HEADER}\n`, 'utf8'),
        Buffer.from('m0,m0@example.com,Zo\u00eb,true,2024-01-05T09:00:00Z\n'),
        iconv.encode('m1,m1@example.com,Ren\u00e9,true,2024-01-05T09:00:00Z\n', 'windows-1252'),
      ]),
    );
    const r = await runInProcess(['validate', path], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/mixes UTF-8 with another encoding/);
    expect(r.stderr).not.toContain('--encoding windows-1252');
  });
});

describe('the rejects CSV is fed back as it is', () => {
  const TEXT = 'memberId;lastName;isActive;createdAt\r\nm-1;Müller;yes;2024-05-01\r\nm-2;Ørsted;maybe;2024-05-01\r\n';
  // [how the input is written, the flags that read it, the rejects file's first bytes, whether no flag reads the rejects too]
  const cases: [string, Buffer, string[], number[], boolean][] = [
    ['utf-16le without a BOM', iconv.encode(TEXT, 'utf-16le'), ['--encoding', 'utf-16le'], [0xff, 0xfe], true],
    ['utf-16le with a BOM', iconv.encode(TEXT, 'utf-16le', { addBOM: true }), [], [0xff, 0xfe], true],
    ['utf-16be without a BOM', iconv.encode(TEXT, 'utf-16be'), ['--encoding', 'utf-16be'], [0xfe, 0xff], true],
    ['windows-1252', iconv.encode(TEXT, 'windows-1252'), ['--encoding', 'windows-1252'], [0x6d], false],
    [
      'utf-8 with a BOM',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]),
      [],
      [0xef, 0xbb, 0xbf],
      true,
    ],
    ['utf-8', Buffer.from(TEXT), [], [0x6d], true],
  ];
  it.each(cases)(
    '%s: read again with the flags that read the input (and, for Unicode, with none)',
    async (name, bytes, flags, head, unflagged) => {
      const input = join(dir, `${name.replace(/\W+/g, '-')}.csv`);
      writeFileSync(input, bytes);
      const rejects = join(dir, `${name.replace(/\W+/g, '-')}-rejects.csv`);
      expect((await runInProcess(['validate', input, ...flags, '--rejects', rejects], env)).code).toBe(3);
      const { readFileSync } = await import('node:fs');
      expect([...readFileSync(rejects).subarray(0, head.length)]).toEqual(head);
      for (const again of unflagged ? [flags, []] : [flags]) {
        const r = await runInProcess(['validate', rejects, ...again, '--json'], env);
        expect(r.stderr, `${name} ${again.join(' ')}`).toBe('');
        const json = JSON.parse(r.stdout);
        expect(json).toMatchObject({ rows: 1, invalid: 1 });
        expect(json.invalidRecords[0].issues.map((i: { path: string }) => i.path)).toEqual(['isActive']);
        expect(json.invalidRecords[0].memberId).toBe('m-2');
      }
    },
  );
});
