import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { openRejectsWriter, type RejectEntry } from '../../src/io/rejects-writer.js';
import { openItemsWriter } from '../../src/io/items-writer.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-rejects-'))));
afterEach(async () => rm(dir, { recursive: true, force: true }));

const mode = async (path: string) => (await stat(path)).mode & 0o777;
const entry = (over: Partial<RejectEntry> = {}): RejectEntry => ({
  record: 2,
  line: 3,
  memberId: 'm-2',
  stage: 'invalid',
  reason: 'email: must be at most 256 characters, got 300',
  input: [],
  ...over,
});

describe('rejects writer', () => {
  it('NDJSON: one object per line with the documented keys; CSV cells keyed by header', async () => {
    const path = join(dir, 'rejects.ndjson');
    const writer = await openRejectsWriter(path, { headers: ['memberId', 'email', '__proto__'] });
    writer.write(entry({ input: ['m-2', 'x@y', 'p'] }));
    writer.write(
      entry({
        record: 3,
        line: 5,
        memberId: undefined,
        stage: 'rejected',
        reason: 'server said no',
        input: 'raw, "text',
      }),
    );
    await writer.close();
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      record: 2,
      line: 3,
      memberId: 'm-2',
      stage: 'invalid',
      reason: entry().reason,
      input: JSON.parse('{"memberId":"m-2","email":"x@y","__proto__":"p"}'),
    });
    expect(Object.keys(lines[0]!.input as object)).toEqual(['memberId', 'email', '__proto__']);
    expect(lines[1]).toMatchObject({ memberId: null, stage: 'rejected', input: 'raw, "text' });
    expect(await mode(path)).toBe(0o600);
  });

  it('NDJSON keeps a JSON record as it was', async () => {
    const path = join(dir, 'rejects.jsonl');
    const writer = await openRejectsWriter(path);
    const input = { memberId: 'j', isActive: 'yes', nested: { a: [1, null] } };
    writer.write(entry({ input }));
    await writer.close();
    expect(JSON.parse(await readFile(path, 'utf8')).input).toEqual(input);
  });

  it('CSV: original columns + stage + error, quoted so csv-parse reads the cells back unchanged', async () => {
    const path = join(dir, 'rejects.csv');
    const headers = ['memberId', 'firstName', 'notes'];
    const tricky = ['m;1', ' Ann "the" one ', 'line one\nline two, still'];
    const writer = await openRejectsWriter(path, { headers, delimiter: ';' });
    writer.write(entry({ input: tricky, reason: 'isActive: required; createdAt: required' }));
    writer.write(entry({ input: 'm-4,unparseable,"' }));
    await writer.close();
    const rows = parse(await readFile(path, 'utf8'), { delimiter: ';' }) as string[][];
    expect(rows[0]).toEqual([...headers, 'stage', 'error']);
    expect(rows[1]).toEqual([...tricky, 'invalid', 'isActive: required; createdAt: required']);
    expect(rows[2]).toEqual(['m-4,unparseable,"', '', '', 'invalid', entry().reason]);
    expect(await mode(path)).toBe(0o600);
  });

  it('a row refused for its number of cells keeps every cell as read, in place, then stage and error (CSV and NDJSON)', async () => {
    const headers = ['memberId', 'email', 'notes'];
    const long = ['m-3', 'Smith', ' John"s', 'x@example.com', 'line one\nline two'];
    const short = ['m-4', 'a "quoted"\r\nvalue'];
    const csvPath = join(dir, 'widths.csv');
    const ndjsonPath = join(dir, 'widths.ndjson');
    for (const path of [csvPath, ndjsonPath]) {
      const writer = await openRejectsWriter(path, { headers });
      writer.write(entry({ input: long, reason: 'the row has 5 cells but the header has 3' }));
      writer.write(entry({ input: short, reason: 'the row has 2 cells but the header has 3' }));
      await writer.close();
    }
    expect(parse(await readFile(csvPath, 'utf8'), { relax_column_count: true })).toEqual([
      [...headers, 'stage', 'error'],
      [...long, 'invalid', 'the row has 5 cells but the header has 3'],
      [...short, 'invalid', 'the row has 2 cells but the header has 3'],
    ]);
    const inputs = (await readFile(ndjsonPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { input: unknown }).input);
    expect(inputs).toEqual([long, short]);
  });

  it('CSV fed back: an existing stage/error pair is replaced, not stacked', async () => {
    const path = join(dir, 'again.csv');
    const writer = await openRejectsWriter(path, { headers: ['memberId', 'stage', 'error'] });
    writer.write(entry({ input: ['m-1', 'invalid', 'old reason'], reason: 'new reason' }));
    await writer.close();
    expect(parse(await readFile(path, 'utf8'))).toEqual([
      ['memberId', 'stage', 'error'],
      ['m-1', 'invalid', 'new reason'],
    ]);
  });

  it('refuses CSV rejects without CSV headers, and unknown extensions', async () => {
    await expect(openRejectsWriter(join(dir, 'r.csv'))).rejects.toThrow(/needs CSV input/);
    await expect(openRejectsWriter(join(dir, 'r.txt'))).rejects.toBeInstanceOf(UsageError);
  });

  it('tightens an existing file to 0600 and truncates it (one memberctl did not write: with --force)', async () => {
    const path = join(dir, 'old.ndjson');
    await writeFile(path, 'old content that is longer than the new one\n'.repeat(10));
    await chmod(path, 0o644);
    await expect(openRejectsWriter(path)).rejects.toMatchObject({ code: 'output-exists' });
    const writer = await openRejectsWriter(path, { force: true });
    writer.write(entry({ input: {} }));
    await writer.close();
    expect(await mode(path)).toBe(0o600);
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(2);
  });

  it('a folder that does not exist is a clear error', async () => {
    await expect(openRejectsWriter(join(dir, 'missing', 'r.ndjson'))).rejects.toThrow(
      /cannot write rejects file .*ENOENT/,
    );
  });
});

describe('items writer', () => {
  it('writes many items in order, one per line, mode 0600, across chunk boundaries', async () => {
    const path = join(dir, 'items.ndjson');
    const writer = await openItemsWriter(path);
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const wait = writer.write({ memberId: `m-${i}`, isActive: i % 2 === 0, createdAt: '2024-05-01T12:00:00Z' });
      if (wait) await wait;
    }
    await writer.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(n);
    expect(JSON.parse(lines[0]!)).toEqual({ memberId: 'm-0', isActive: true, createdAt: '2024-05-01T12:00:00Z' });
    expect(JSON.parse(lines[n - 1]!).memberId).toBe(`m-${n - 1}`);
    expect(await mode(path)).toBe(0o600);
  });
});
