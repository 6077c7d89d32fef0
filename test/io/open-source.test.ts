import { chmodSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openRecordSource } from '../../src/io/open-source.js';
import { readAll, stdinOf, tempDir } from './reader-helpers.js';

const dir = tempDir('open');
afterAll(() => dir.remove());

const memberIds = (records: { raw: unknown }[], format: string) =>
  records.map((r) => (format === 'csv' ? (r.raw as string[])[0] : (r.raw as { memberId: string }).memberId));

describe('openRecordSource', () => {
  it.each([
    ['fixtures/members.csv', 'csv'],
    ['fixtures/members.ndjson', 'ndjson'],
    ['fixtures/members.json', 'json'],
  ] as const)('reads %s, and the same gzipped, to the same records', async (path, format) => {
    const plain = await readAll({ path });
    expect(plain.source.format).toBe(format);
    expect(plain.records).toHaveLength(20);
    expect(memberIds(plain.records, format)).toEqual(Array.from({ length: 20 }, (_, i) => `m-${1001 + i}`));
    const gz = dir.write(path.split('/').pop()! + '.gz', gzipSync(readFileSync(path)));
    const zipped = await readAll({ path: gz });
    expect(zipped.source.format).toBe(format);
    expect(zipped.records).toEqual(plain.records);
    // progress counts the compressed bytes read from the file
    expect(zipped.source.totalBytes).toBe(readFileSync(gz).length);
    expect(zipped.source.bytesRead()).toBe(zipped.source.totalBytes);
  });

  it('the committed fixtures/members.csv.gz matches members.csv', async () => {
    const [a, b] = await Promise.all([
      readAll({ path: 'fixtures/members.csv' }),
      readAll({ path: 'fixtures/members.csv.gz' }),
    ]);
    expect(b.records).toEqual(a.records);
    expect(b.source.headers).toEqual(a.source.headers);
  });

  it('format from the extension: .tsv and .jsonl too; names are case-insensitive', async () => {
    const tsv = await readAll({ path: dir.write('m.TSV', 'memberId\tisActive\nm-1\ttrue\n') });
    expect([tsv.source.format, tsv.source.delimiter, tsv.records[0]!.raw]).toEqual(['csv', '\t', ['m-1', 'true']]);
    expect((await readAll({ path: dir.write('m.jsonl', '{"memberId":"j"}\n') })).source.format).toBe('ndjson');
  });

  it('stdin: --format is used as given; without it the first byte decides ([ json, { ndjson, else csv)', async () => {
    const given = await readAll({ path: '-', format: 'ndjson', stdin: stdinOf('{"a":1}\n') });
    expect([given.source.file, given.source.format, given.source.totalBytes, given.records[0]!.raw]).toEqual([
      'stdin',
      'ndjson',
      undefined,
      { a: 1 },
    ]);
    for (const [text, format] of [
      ['\n  [{"a":1}]', 'json'],
      ['\ufeff{"a":1}\n{"a":2}', 'ndjson'],
      ['a,b\n1,2\n', 'csv'],
    ] as const) {
      const sniffed = await readAll({ path: '-', stdin: stdinOf(text, 1) });
      expect(sniffed.source.format).toBe(format);
      expect(sniffed.records.length).toBeGreaterThan(0);
      expect(sniffed.records.every((r) => r.error === undefined)).toBe(true);
    }
  });

  it('gzip data is recognised by its magic bytes on stdin and under any name', async () => {
    const zipped = gzipSync('memberId,isActive\nm-1,true\n');
    expect((await readAll({ path: '-', stdin: stdinOf(zipped, 7) })).records[0]!.raw).toEqual(['m-1', 'true']);
    expect((await readAll({ path: dir.write('really-gzip.csv', zipped) })).records).toHaveLength(1);
  });

  it('a .gz that is not gzip, and a truncated .gz, are InputErrors naming the file', async () => {
    await expect(readAll({ path: dir.write('plain.csv.gz', 'a,b\n1,2\n') })).rejects.toMatchObject({
      code: 'input-gzip',
      message: expect.stringMatching(/plain\.csv\.gz: is not gzip data/),
    });
    const full = gzipSync(Buffer.from('memberId\n' + 'm-123456789\n'.repeat(20000)));
    const cut = dir.write('cut.csv.gz', full.subarray(0, full.length - 200));
    const { records, error } = await readAll({ path: cut });
    expect(records.length).toBeGreaterThan(0);
    expect(error).toMatchObject({
      code: 'input-gzip',
      message: expect.stringMatching(/cut\.csv\.gz: the gzip data ends early/),
    });
  });

  it('a missing file, a directory and an unreadable file are InputErrors (exit 2) with a hint', async () => {
    const missing = await openRecordSource({ path: dir.path('nope.csv') }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(InputError);
    expect(missing).toMatchObject({
      code: 'input-unreadable',
      category: 'usage',
      message: `${dir.path('nope.csv')}: not found`,
    });
    expect((missing as InputError).hint).toBeTruthy();
    await expect(openRecordSource({ path: 'fixtures' })).rejects.toMatchObject({
      code: 'input-unreadable',
      message: 'fixtures is a directory, not a file',
    });
    if (process.getuid?.() !== 0) {
      const locked = dir.write('locked.csv', 'a\n1\n');
      chmodSync(locked, 0o000);
      await expect(openRecordSource({ path: locked })).rejects.toMatchObject({
        message: `${locked}: permission denied`,
      });
    }
  });

  it('a bad --format, or --delimiter with JSON input, is a usage error', async () => {
    await expect(openRecordSource({ path: 'fixtures/members.csv', format: 'xml' as never })).rejects.toMatchObject({
      code: 'format',
      category: 'usage',
    });
    await expect(openRecordSource({ path: 'fixtures/members.ndjson', delimiter: ';' })).rejects.toMatchObject({
      code: 'csv-only-option',
      message: '--delimiter applies to CSV input only (fixtures/members.ndjson is ndjson)',
    });
  });

  it('bytesRead grows while reading; close() stops early and releases the file', async () => {
    const lines = ['memberId,isActive'];
    for (let i = 0; i < 100000; i++) lines.push(`m-${i},true`);
    const path = dir.write('many.csv', lines.join('\n'));
    const holdsFile = () =>
      readdirSync('/proc/self/fd').some((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false; // closed while we looked
        }
      });
    // Closing a file handle completes asynchronously (later under load): wait for it, up to 5 s, then judge.
    const released = async () => {
      for (let waited = 0; waited < 5000 && holdsFile(); waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return !holdsFile();
    };
    const source = await openRecordSource({ path });
    expect(source.totalBytes).toBeGreaterThan(1_000_000);
    let seen = 0;
    for await (const record of source) {
      seen = record.record;
      if (seen === 10) break;
    }
    expect(holdsFile()).toBe(true);
    expect(source.bytesRead()).toBeGreaterThan(0);
    expect(source.bytesRead()).toBeLessThan(source.totalBytes!);
    expect(await released()).toBe(true); // leaving the loop released it
    // close() from outside the loop (Ctrl-C, --limit) while records are still being read
    const again = await openRecordSource({ path });
    const iterator = again[Symbol.asyncIterator]();
    for (let i = 0; i < 10; i++) await iterator.next();
    expect(holdsFile()).toBe(true);
    await again.close();
    await again.close();
    expect(await released()).toBe(true);
    expect((await iterator.next()).done).toBe(true);
  });

  it('close() before reading ends the iteration with no records', async () => {
    const source = await openRecordSource({ path: 'fixtures/members.ndjson' });
    await source.close();
    const records = [];
    for await (const record of source) records.push(record);
    expect(records).toEqual([]);
  });
});
