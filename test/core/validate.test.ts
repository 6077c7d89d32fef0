import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFile, type InvalidRecord } from '../../src/core/validate/validate-file.js';
import { readCandidates } from '../../src/core/read-candidates.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-core-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** n rows; every third one has isActive "maybe", every fifth an email over 256 characters. */
async function generated(n: number): Promise<string> {
  const path = join(dir, `gen-${n}.csv`);
  const lines = ['memberId,email,isActive,createdAt'];
  for (let i = 1; i <= n; i++) {
    const email = i % 5 === 0 ? `${'x'.repeat(260)}@example.com` : `m${i}@example.com`;
    lines.push(`m-${i},${email},${i % 3 === 0 ? 'maybe' : 'yes'},2024-05-01`);
  }
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

describe('validateFile', () => {
  it('accounts for every record, streams each invalid one, keeps only a bounded sample and counts reasons', async () => {
    const path = await generated(3000);
    const seen: InvalidRecord[] = [];
    const stats = await validateFile(
      { path, sampleSize: 5 },
      (event) => void (event.type === 'invalid' && seen.push(event.invalid)),
    );
    const invalid = [...Array(3000).keys()].map((i) => i + 1).filter((i) => i % 3 === 0 || i % 5 === 0).length;
    expect(stats).toMatchObject({ file: path, format: 'csv', rows: 3000, valid: 3000 - invalid, invalid });
    expect(seen).toHaveLength(invalid);
    expect(seen.map((s) => s.record)).toEqual([...seen.map((s) => s.record)].sort((a, b) => a - b));
    expect(stats.sample).toHaveLength(5);
    expect(stats.sample[0]).toEqual({
      record: 3,
      line: 4,
      memberId: 'm-3',
      issues: [
        { path: 'isActive', message: 'expected true/false, yes/no, y/n or 1/0, got "maybe"', rule: 'not a boolean' },
      ],
    });
    expect(stats.reasons).toEqual([
      { reason: 'isActive: not a boolean', count: 1000 },
      { reason: 'email: longer than 256 characters', count: 600 },
    ]);
  });

  it('--output holds the valid items in input order; --rejects the invalid ones', async () => {
    const path = await generated(30);
    const output = join(dir, 'items.ndjson');
    const rejects = join(dir, 'rejects.ndjson');
    const stats = await validateFile({ path, outputPath: output, rejectsPath: rejects });
    const items = (await readFile(output, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items.map((i) => i.memberId)).toEqual([
      'm-1',
      'm-2',
      'm-4',
      'm-7',
      'm-8',
      'm-11',
      'm-13',
      'm-14',
      'm-16',
      'm-17',
      'm-19',
      'm-22',
      'm-23',
      'm-26',
      'm-28',
      'm-29',
    ]);
    expect(items[0]).toEqual({
      memberId: 'm-1',
      email: 'm1@example.com',
      isActive: true,
      createdAt: '2024-05-01T00:00:00.000Z',
    });
    const rejected = (await readFile(rejects, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejected).toHaveLength(stats.invalid);
    expect(rejected[0]).toEqual({
      record: 3,
      line: 4,
      memberId: 'm-3',
      stage: 'invalid',
      reason: 'isActive: expected true/false, yes/no, y/n or 1/0, got "maybe"',
      input: { memberId: 'm-3', email: 'm3@example.com', isActive: 'maybe', createdAt: '2024-05-01' },
    });
    expect(stats.output).toEqual({ path: output, items: 16 });
    expect(stats.rejects).toEqual({ path: rejects, format: 'ndjson', records: 14 });
  });

  it('--limit reads only the first N records', async () => {
    const path = await generated(100);
    const stats = await validateFile({ path, limit: 7 });
    expect(stats.rows).toBe(7);
    const stream = await readCandidates({ path, limit: 2 });
    const records: number[] = [];
    for await (const c of stream.candidates) records.push(c.record);
    expect(records).toEqual([1, 2]);
  });

  it('refuses a CSV rejects file for NDJSON input before reading', async () => {
    const path = join(dir, 'a.ndjson');
    await writeFile(path, '{"memberId":"a","isActive":true,"createdAt":"2024-05-01T00:00:00Z"}\n');
    await expect(validateFile({ path, rejectsPath: join(dir, 'r.csv') })).rejects.toBeInstanceOf(UsageError);
    expect((await validateFile({ path })).valid).toBe(1);
  });

  it('input that turns unreadable midway: the error is thrown, and neither --output nor --rejects appears (cut, they would read as whole)', async () => {
    const path = join(dir, 'cut.json');
    await writeFile(
      path,
      '[{"memberId":"a","isActive":"yes","createdAt":"2024-05-01T00:00:00Z"},\n{"memberId":"b","isActive":true,"createdAt":"2024-05-01T00:00:00Z"},\n{"memberId":"c","isAct',
    );
    const output = join(dir, 'cut-items.ndjson');
    const rejects = join(dir, 'cut-rejects.ndjson');
    await expect(validateFile({ path, outputPath: output, rejectsPath: rejects })).rejects.toMatchObject({
      category: 'usage',
      message: expect.stringContaining('line 3'),
    });
    expect(existsSync(output)).toBe(false);
    expect(existsSync(rejects)).toBe(false);
  });

  it('Ctrl-C midway (the signal aborted): the run stops, neither output appears and no temp file is left', async () => {
    const path = await generated(30_000);
    const output = join(dir, 'stopped-items.ndjson');
    const rejects = join(dir, 'stopped-rejects.ndjson');
    const stop = new AbortController();
    let rows = 0;
    const run = validateFile({ path, outputPath: output, rejectsPath: rejects, signal: stop.signal }, (event) => {
      if (event.type === 'progress' && (rows = event.progress.rows) > 0) stop.abort();
    });
    await expect(run).rejects.toMatchObject({
      code: 'interrupted',
      category: 'cancelled',
      message: expect.stringMatching(
        /^interrupted after [\d,]+ records of .*gen-30000\.csv: the run stopped, nothing was written$/,
      ),
    });
    expect(rows).toBeLessThan(30_000);
    expect(existsSync(output)).toBe(false);
    expect(existsSync(rejects)).toBe(false);
    expect((await readdir(dir)).filter((name) => name.includes('stopped-'))).toEqual([]);
  });

  it('Ctrl-C while a pipe left open sends nothing more: answered at once, not when the next rows come', async () => {
    const stdin = new PassThrough();
    stdin.write('memberId,isActive,createdAt\n');
    const rows = 20_000; // more than the reader looks at before it starts (the delimiter, the encoding)
    for (let n = 1; n <= rows; n++) stdin.write(`m-${n},y,2024-05-01\n`);
    const stop = new AbortController();
    let read = 0;
    const run = validateFile({ path: '-', stdin, signal: stop.signal }, (event) => {
      if (event.type === 'progress') read = event.progress.rows;
    });
    // every row written is read (the pipe holds nothing more), then the stop comes: the run waits on the pipe
    while (stdin.readableLength > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    await expect(run).rejects.toMatchObject({ code: 'interrupted', category: 'cancelled' });
    expect(read).toBeGreaterThanOrEqual(rows - 1); // (the last line may wait for what follows it)
    stdin.destroy();
  });

  it('reports warnings for ignored columns and unused mapping rules', async () => {
    const path = join(dir, 'extra.csv');
    await writeFile(path, 'memberId,isActive,createdAt,Shoe Size\nm-1,y,2024-05-01,44\n');
    const warnings: string[] = [];
    const stats = await validateFile(
      { path, ignoreUnknownColumns: true },
      (event) => void (event.type === 'warning' && warnings.push(event.message)),
    );
    expect(stats.valid).toBe(1);
    expect(warnings).toEqual([`${path}: ignoring unknown column "Shoe Size" (column 4)`]);
  });
});

describe('validateFile, random CSV files (property)', () => {
  it('every row written is one record, valid or invalid; --output holds exactly the valid ones', async () => {
    const { default: fc } = await import('fast-check');
    const { csvLine } = await import('../../src/io/rejects-writer.js');
    const headers = ['memberId', 'email', 'isActive', 'createdAt', 'metadata.__proto__', 'customProperties.x'];
    const cell = fc.oneof(
      fc.constantFrom('', 'yes', 'n', '2024-05-01', '2024-05-01T10:00:00Z', 'a,b', 'say "hi"', 'two\nlines'),
      fc.string({ maxLength: 20 }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 6, maxLength: 6 }), { minLength: 1, maxLength: 40 }),
        async (rows) => {
          // a row whose cells are all empty is a blank line, which readers skip: keep one cell non-empty
          const data = rows.map((cells) => (cells.every((c) => c.trim() === '') ? ['m', ...cells.slice(1)] : cells));
          const path = join(dir, `prop-${run}.csv`);
          const output = join(dir, `prop-${run++}.ndjson`);
          await writeFile(path, [headers, ...data].map((cells) => csvLine(cells, ',')).join('\n') + '\n');
          const stats = await validateFile({ path, outputPath: output });
          expect(stats.rows).toBe(data.length);
          expect(stats.valid + stats.invalid).toBe(stats.rows);
          const written = (await readFile(output, 'utf8')).split('\n').filter(Boolean);
          expect(written).toHaveLength(stats.valid);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('rows of another width than the header', () => {
  const header = 'memberId,isActive,createdAt,email,address.city,metadata.tier';
  const rows = [
    'A1,true,2024-01-01,a1@example.com,Oslo,Gold',
    'A2,true,2024-01-01,Toronto,ON', // email left out in the middle: Toronto would be the email
    'A3,true,2024-01-01,a3@example.com,Bergen', // a trailing empty cell left out
    'A4,true,2024-01-01,"a4@example.com",Smith, John,Gold', // a stray comma
    '"A5",true,2024-01-01,"say ""hi""\nat the door",Oslo', // short, with quotes and a line break in a cell
    'A6,true,2024-01-01,a6@example.com,"Ål\r\nesund",Gold,"x ""y"""',
  ];

  it('short rows are refused like long ones, naming the line; --pad-short-rows fills trailing cells and counts them', async () => {
    const path = join(dir, 'widths.csv');
    await writeFile(path, `${header}\n${rows.join('\n')}\n`);
    const refused = await validateFile({ path });
    expect(refused).toMatchObject({ rows: 6, valid: 1, invalid: 5, paddedRows: undefined });
    expect(refused.sample.map((s) => [s.line, s.issues[0]!.message.split(' — ')[0]])).toEqual([
      [3, 'the row has 5 cells but the header has 6'],
      [4, 'the row has 5 cells but the header has 6'],
      [5, 'the row has 7 cells but the header has 6 (cell 7 is "Gold")'],
      [6, 'the row has 5 cells but the header has 6'],
      [8, 'the row has 7 cells but the header has 6 (cell 7 is "x "y"")'],
    ]);
    const padded = await validateFile({ path, padShortRows: true, outputPath: join(dir, 'padded.ndjson') });
    expect(padded).toMatchObject({ rows: 6, valid: 4, invalid: 2, paddedRows: 3 });
    const items = (await readFile(join(dir, 'padded.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items[2]).toMatchObject({ memberId: 'A3', email: 'a3@example.com', address: { city: 'Bergen' } });
    expect(items[2].metadata).toBeUndefined();
  });

  it("the rejects CSV keeps each refused row as written: read back, its cells are the row's, and fed back it is refused again", async () => {
    const path = join(dir, 'widths-rejects-in.csv');
    await writeFile(path, `${header}\n${rows.join('\n')}\n`);
    const rejects = join(dir, 'widths-rejects.csv');
    await validateFile({ path, rejectsPath: rejects });
    const cellsOf = async (file: string) => {
      const stream = await readCandidates({ path: file });
      const cells: string[][] = [];
      for await (const batch of stream.batches) for (const record of batch) cells.push(record.raw as string[]);
      return cells;
    };
    const written = await cellsOf(path);
    const back = await cellsOf(rejects);
    expect(back.map((cells) => cells.slice(0, -2))).toEqual(written.slice(1));
    expect(back.map((cells) => cells.at(-2))).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'invalid']);
    const again = await validateFile({ path: rejects });
    expect(again).toMatchObject({ rows: 5, valid: 0, invalid: 5 });
  });
});
