/**
 * CSV parsed in the worker (large files) gives exactly what parsing on the main thread gives: the same headers, the
 * same records with their numbers, lines, cells, errors and end marks, the same InputError at the same line.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { InputError, ReaderFailure } from '../../src/errors.js';
import { csvWorkerEntry } from '../../src/io/csv-worker-client.js';
import { openCsv } from '../../src/io/csv-reader.js';
import type { InputBytes } from '../../src/io/input-bytes.js';
import { packRecords, unpackRecords } from '../../src/io/csv-worker-messages.js';
import { isEncoded, type RowEncoder, type SourceRecord } from '../../src/io/source.js';
import { checkedUtf8 } from '../../src/io/input-encoding.js';
import { Utf8LineChecker, type InvalidUtf8Summary } from '../../src/io/utf8-check.js';
import { readAll, tempDir } from './reader-helpers.js';

const worker = csvWorkerEntry(undefined, true, 'always');

/** An InputBytes over the given bytes, cut into chunks of `chunkSize`; `closed` tells whether close() was called. */
function bytesOf(content: Buffer, chunkSize: number): InputBytes & { closed: boolean } {
  const chunks: Buffer[] = [];
  for (let i = 0; i < content.length; i += chunkSize) chunks.push(content.subarray(i, i + chunkSize));
  let read = 0;
  return {
    closed: false,
    next: async () => chunks.shift(),
    unshift: (chunk) => void chunks.unshift(chunk),
    bytesRead: () => read,
    async close() {
      this.closed = true;
    },
  };
}

type Outcome = {
  headers?: string[];
  records: SourceRecord[];
  error?: { message: string; code: string; line?: number };
  utf8?: InvalidUtf8Summary;
};

/** As open-source.ts reads a UTF-8 file: the bytes pass a checker on this thread, and the records claim its bad lines. */
async function parse(content: Buffer, chunkSize: number, inWorker: boolean): Promise<Outcome> {
  const utf8 = new Utf8LineChecker();
  const outcome = await parseChecked(checkedUtf8(bytesOf(content, chunkSize), utf8), utf8, inWorker);
  return { ...outcome, utf8: utf8.summary() };
}

async function parseChecked(bytes: InputBytes, utf8: Utf8LineChecker, inWorker: boolean): Promise<Outcome> {
  const records: SourceRecord[] = [];
  const asError = (error: unknown) => {
    if (!(error instanceof InputError)) throw error;
    return { message: error.message, code: error.code, line: error.line };
  };
  let csv;
  try {
    csv = await openCsv(bytes, 'in.csv', { utf8, worker: inWorker ? worker : undefined });
  } catch (error) {
    return { records, error: asError(error) };
  }
  try {
    for await (const chunk of csv.records) records.push(...chunk);
  } catch (error) {
    return { headers: csv.headers, records, error: asError(error) };
  }
  return { headers: csv.headers, records };
}

describe('CSV parsed in a worker', () => {
  it('is built (the worker runs the compiled code)', () => {
    expect(worker).toBeDefined();
  });

  it('gives the same headers, records, errors and lines as the main thread, for any bytes and chunking', async () => {
    const text = fc
      .array(
        fc.constantFrom(
          'a',
          'é',
          '会',
          '😀',
          ',',
          ';',
          '"',
          '""',
          '\n',
          '\r\n',
          '\r',
          ' ',
          '\t',
          'id',
          '\ufeff',
          '\u0000',
        ),
        { maxLength: 120 },
      )
      .map((parts) => Buffer.from(parts.join('')));
    const bytes = fc.oneof(
      text,
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      text.map((b) => Buffer.concat([b, Buffer.from([0xff, 0xc3]), b])),
    );
    await fc.assert(
      fc.asyncProperty(bytes, fc.constantFrom(1, 3, 16, 1 << 16), async (content, chunkSize) => {
        const here = await parse(content, chunkSize, false);
        const there = await parse(content, chunkSize, true);
        expect(there).toEqual(here);
      }),
      // "\t\n\"": a header of two empty names, then a quote never closed: the header is refused first, as on this thread
      {
        numRuns: 60,
        examples: [
          [Buffer.from([9, 10, 34]), 1],
          [Buffer.from([97, 34, 13, 10, 34, 255, 195, 97, 34, 13, 10, 34]), 1],
          [Buffer.from('a;\ra'), 1],
          [Buffer.from('a;\ra'), 3],
          [Buffer.from('a;\ra'), 16],
        ],
      },
    );
  });

  it('hands over a file of many chunks whole, in order, and closes the input at the end', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `m-${i},"Ann, ${i}",København ${i % 7}`);
    const content = Buffer.from(`memberId,name,city\n${rows.join('\n')}\n`);
    const input = bytesOf(content, 1 << 16);
    const csv = await openCsv(input, 'big.csv', { worker });
    const records: SourceRecord[] = [];
    for await (const chunk of csv.records) records.push(...chunk);
    expect(records).toHaveLength(20_000);
    expect(records[19_999]).toEqual({ record: 20_000, line: 20_001, raw: ['m-19999', 'Ann, 19999', 'København 0'] });
    expect(input.closed).toBe(true);
  });

  it('hands out the records of the bytes read so far while the input is silent (a pipe whose writer pauses)', async () => {
    // the first chunk, then nothing until the reader closes the input (as Ctrl-C does): the worker used to wait for
    // four chunks before answering the first, so an import fed slowly by a pipe sent nothing and accounted for nothing
    let closed = false;
    let release: () => void = () => undefined;
    const chunks: Buffer[] = [Buffer.from('memberId,name\nm1,Ann\nm2,Bo\n')];
    const silent: InputBytes = {
      next: async () =>
        chunks.shift() ??
        (closed ? undefined : await new Promise<undefined>((resolve) => (release = () => resolve(undefined)))),
      unshift: (chunk) => void chunks.unshift(chunk),
      bytesRead: () => 0,
      async close() {
        closed = true;
        release();
      },
    };
    const csv = await openCsv(silent, 'pipe.csv', { worker });
    expect(csv.headers).toEqual(['memberId', 'name']);
    const records = csv.records[Symbol.asyncIterator]();
    // csv-parse keeps the last line until it knows the line is whole (what follows a \r may be its \n), here too
    expect((await records.next()).value).toEqual([{ record: 1, line: 2, raw: ['m1', 'Ann'] }]);
    await silent.close();
    expect((await records.next()).value).toEqual([{ record: 2, line: 3, raw: ['m2', 'Bo'] }]);
    expect(await records.next()).toEqual({ done: true, value: undefined });
  });

  it('stops when the reader stops early: the input is closed and the run does not wait for the worker', async () => {
    const content = Buffer.from(`id,x\n${'a,b\n'.repeat(100_000)}`);
    const input = bytesOf(content, 1 << 12);
    const csv = await openCsv(input, 'big.csv', { worker });
    for await (const chunk of csv.records) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(input.closed).toBe(true);
  });

  it('packs and unpacks records exactly, errors and end marks included', () => {
    const records: SourceRecord[] = [
      { record: 1, line: 2, raw: ['a', 'é', ''] },
      { record: 2, line: 4, raw: ['x'], error: { message: 'bad', hint: 'fix it' } },
      { record: 3, line: 5, raw: ['😀', '会'], unterminated: true },
    ];
    expect(unpackRecords(packRecords(records, [2, 4, 6]))).toEqual({ records, ends: [2, 4, 6] });
  });

  it('unpacks any cells exactly: short ones cut from the chunk text, long ones decoded alone, wide text too', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom('é', 'ÿ', '😀', '会', '\ud800', '\udc00', '\u0000', '"', ','),
    );
    // lengths on both sides of the 13 characters where V8 stops copying a substring
    const cellArb = fc.oneof(
      fc.array(piece, { maxLength: 8 }).map((parts) => parts.join('')),
      fc.integer({ min: 10, max: 15 }).chain((n) => fc.string({ minLength: n, maxLength: n })),
      fc.integer({ min: 11, max: 14 }).map((n) => 'ø'.repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(fc.array(cellArb, { maxLength: 6 }), { minLength: 1, maxLength: 20 }), (rows) => {
        const records: SourceRecord[] = rows.map((raw, i) => ({ record: i + 1, line: i + 2, raw }));
        const ends = rows.map((_, i) => i + 2);
        expect(unpackRecords(packRecords(records, ends))).toEqual({ records, ends });
      }),
      { numRuns: 500 },
    );
  });

  it('packs the rows an encoder takes as their memberId, hashes and JSON bytes, and every other row as its cells', () => {
    // takes a row whose first cell starts with "m": its JSON is its cells as an array, hashed when the id is not " "
    const encoder: RowEncoder = (record, into) => {
      const cells = record.raw as string[];
      if (!cells[0]!.startsWith('m')) return false;
      into.json = JSON.stringify(cells);
      into.memberId = cells[0]!;
      into.hashed = cells[0] !== 'm ';
      into.idLow = -cells.length;
      into.idHigh = 2 ** 31 - 1;
      into.content = cells[0]!.length;
      return true;
    };
    const cellArb = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('é', '😀', '会', 'm ', 'm1', 'm😀'.repeat(20)),
    );
    const rowArb = fc.record({
      raw: fc.array(cellArb, { minLength: 1, maxLength: 5 }),
      flaw: fc.constantFrom('none', 'none', 'error', 'padded', 'quoted', 'replacement', 'unterminated'),
    });
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 1, maxLength: 30 }), (rows) => {
        const records: SourceRecord[] = rows.map(({ raw, flaw }, i) => {
          const record: SourceRecord = {
            record: i + 1,
            line: i + 2,
            raw: flaw === 'replacement' ? [...raw, 'x\ufffd'] : raw,
          };
          if (flaw === 'error') record.error = { message: 'bad' };
          if (flaw === 'padded') record.padded = true;
          if (flaw === 'quoted') record.quotedNullTokens = [0];
          if (flaw === 'unterminated') record.unterminated = true;
          return record;
        });
        const ends = rows.map((_, i) => i + 3);
        const packed = packRecords(records, ends, encoder);
        const unpacked = unpackRecords(packed);
        expect(unpacked.ends).toEqual(ends);
        unpacked.records.forEach((got, i) => {
          const sent = records[i]!;
          const cells = sent.raw as string[];
          const taken = !sent.error && !sent.padded && !sent.quotedNullTokens && !cells.join('').includes('\ufffd');
          if (!taken || !cells[0]!.startsWith('m')) {
            expect(isEncoded(got)).toBe(false);
            expect(got).toEqual(sent);
            return;
          }
          if (!isEncoded(got)) throw new Error('expected an encoded record');
          expect(got.slab.toString('utf8', got.at, got.at + got.bytes)).toBe(JSON.stringify(cells));
          expect(got.slab[got.at + got.bytes]).toBe(0x2c); // a comma after each item, as a body holds them
          expect(got).toMatchObject({ record: sent.record, line: sent.line, raw: undefined, memberId: cells[0] });
          expect(got.unterminated).toBe(sent.unterminated);
          expect(got.hashed).toBe(cells[0] !== 'm ');
          if (got.hashed)
            expect([got.idLow, got.idHigh, got.content]).toEqual([-cells.length, 2 ** 31 - 1, cells[0]!.length]);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps line numbers past 2^31 (a file of billions of blank lines): on the main thread they are plain numbers', () => {
    const records: SourceRecord[] = [
      { record: 1, line: 2 ** 31 + 5, raw: ['a'] },
      { record: 2, line: 2 ** 32 + 1, raw: ['b'] },
    ];
    expect(unpackRecords(packRecords(records, [2 ** 31 + 6, 2 ** 32 + 1]))).toEqual({
      records,
      ends: [2 ** 31 + 6, 2 ** 32 + 1],
    });
  });
});

describe('openRecordSource on a file', () => {
  const dir = tempDir('csv-worker');
  afterAll(() => dir.remove());

  it('parses a large file in the worker and a small one here, with the same result', async () => {
    const rows = Array.from(
      { length: 40_000 },
      (_, i) => `m-${i},${i % 3 ? 'true' : 'no'},2024-05-01T12:00:00Z,"line one\nline two ${i}"`,
    );
    const path = dir.write('big.csv', `memberId,isActive,createdAt,note\n${rows.join('\n')}\n`);
    expect(csvWorkerEntry(3 * 1024 * 1024, true, 'auto', 3)).toBeDefined();
    // one or two usable cores (a pod's cgroup quota: cpu-quota.ts): the worker costs CPU and memory and gives nothing
    expect(csvWorkerEntry(3 * 1024 * 1024, true, 'auto', 2)).toBeUndefined();
    expect(csvWorkerEntry(3 * 1024 * 1024, true, 'auto', 1)).toBeUndefined();
    expect(csvWorkerEntry(3 * 1024 * 1024, true, 'always', 1)).toBeDefined();
    expect(csvWorkerEntry(3 * 1024 * 1024, false, 'auto')).toBeUndefined();
    expect(csvWorkerEntry(1024, true, 'auto')).toBeUndefined();
    expect(csvWorkerEntry(undefined, true, 'auto')).toBeUndefined();
    const inWorker = await readAll({ path, csvWorker: 'always' });
    const here = await readAll({ path, csvWorker: 'never' });
    expect(inWorker.records).toHaveLength(40_000);
    expect(inWorker.records[39_999]!.line).toBe(80_000);
    expect(inWorker.records).toEqual(here.records);
  });
});

describe('a worker that dies', () => {
  it('a crash (the thread exits midway) is a ReaderFailure naming it, after the records parsed before it', async () => {
    // the real worker, whose thread exits on its third chunk: as a crash of the worker would
    const dir = tempDir('dying-worker');
    const dying = dir.write(
      'dying-worker.mjs',
      `import ${JSON.stringify(worker!.href)};\nimport { parentPort } from 'node:worker_threads';\nlet n = 0;\nparentPort.on('message', () => { if (++n === 3) process.exit(7); });\n`,
    );
    const lines = ['memberId,isActive'];
    for (let r = 1; r <= 2000; r++) lines.push(`m${r},true`);
    const csv = await openCsv(bytesOf(Buffer.from(`${lines.join('\n')}\n`), 4096), 'dies.csv', {
      worker: pathToFileURL(dying),
    });
    const records: SourceRecord[] = [];
    let failure: unknown;
    try {
      for await (const chunk of csv.records) records.push(...chunk);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ReaderFailure);
    expect(failure).toMatchObject({ died: 'exited', message: expect.stringContaining('exited (code 7)') });
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(2000);
    dir.remove();
  });
});
