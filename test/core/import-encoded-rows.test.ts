/**
 * Rows the CSV worker maps, checks and serialises (import/row-encoder.ts, EncodedRecord) are sent exactly as the
 * main thread sends them: the same bytes per item, in the same order per member, counted the same, with invalid
 * rows, repeats of a memberId (identical or not, under every --duplicates rule) and rows held behind their
 * member's earlier row mixed in. Each file is imported twice: parsed on this thread (every row mapped here, as
 * before the worker encoded anything) and in the worker with every chunk encoded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runPipeline, type ImportResponse, type ImportSummary } from '../../src/core/import/index.js';
import { readCandidates } from '../../src/core/read-candidates.js';
import type { DuplicateRule } from '../../src/core/duplicates/duplicate-members.js';
import { isEncoded, type SourceRecord } from '../../src/io/source.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { client } from './import-helper.js';
import { MemoryTransport } from './memory-transport.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-encoded-rows-'));
const HEADER = 'memberId,email,firstName,isActive,createdAt,birthdate,metadata.tier,address.city,address.countryCode';
/** A mapping the worker compiles again from its text: rules, one column feeding two fields, omit, emptyAsNull. */
const MAPPING = join(dir, 'mapping.json');
writeFileSync(
  MAPPING,
  JSON.stringify({
    columns: {
      email: { field: 'email', transform: ['trim', 'lowercase'], onInvalid: 'omit' },
      isActive: { field: 'isActive', values: { true: true, false: false } },
      birthdate: { field: 'birthdate', treatAsEmpty: ['19510211'], emptyAsNull: true },
      'metadata.tier': ['metadata.tier', { field: 'customProperties.tierCopy' }],
      'address.countryCode': { field: 'address.countryCode', convert: 'countryCode', onInvalid: 'omit' },
    },
  }),
);
/** Rows enough that the rows after them are parsed once the worker has its encoder (it parses 4 chunks ahead). */
const FILLER = 8_000;

/** Every body as it went on the wire: checked to be its items' JSON.stringify, then kept item by item per member. */
class RecordingTransport extends MemoryTransport {
  readonly sent = new Map<string, string[]>();

  override async postImport(body: Uint8Array): Promise<ImportResponse> {
    const text = Buffer.from(body).toString('utf8');
    const items = JSON.parse(text) as { memberId: string }[];
    // the body's bytes are its items' JSON.stringify, so each item's text below is byte for byte what was sent
    expect(JSON.stringify(items)).toBe(text);
    for (const item of items) {
      const list = this.sent.get(item.memberId) ?? [];
      list.push(JSON.stringify(item));
      this.sent.set(item.memberId, list);
    }
    return super.postImport(body);
  }
}

const cell = (value: string) =>
  /[",\n\r]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('Åsa', 'Zoë "Z"', 'a,b', ' padded ', 'line\nbreak', '😀', 'NULL', '\\u0000'),
);
/** Mostly a value the schema takes, now and then one it refuses: most rows valid, some invalid. */
const mostly = (good: string[], bad: string[]) =>
  fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
const validRow = fc.record({
  id: fc.integer({ min: 1, max: 40 }),
  email: mostly(['', 'a@example.com', 'b@example.org'], ['not-an-email']),
  firstName: text,
  isActive: mostly(['true', 'false', 'TRUE'], ['maybe', '']),
  createdAt: mostly(['2024-01-05T09:00:00Z', '2024-03-01T10:00:00+01:00'], ['2024-02-30T00:00:00Z', 'nope', '']),
  birthdate: mostly(['', '1951-02-11'], ['1951-13-01', '19510211']),
  tier: text,
  city: text,
  country: mostly(['', 'SE', 'NO'], ['XX1']),
});
type Row = typeof validRow extends fc.Arbitrary<infer T> ? T : never;

function line(row: Row): string {
  const { id, email, firstName, isActive, createdAt, birthdate, tier, city, country } = row;
  return [`m${id}`, email, firstName, isActive, createdAt, birthdate, tier, city, country].map(cell).join(',');
}

/** Random rows, the filler, then random rows again (some repeating earlier ones), a row with bytes not UTF-8. */
function csvFile(name: string, before: Row[], after: Row[], repeats: number[], badByteAt: number): string {
  const lines = [HEADER, ...before.map(line)];
  for (let i = 1; i <= FILLER; i++)
    lines.push(`f${i},f${i}@example.com,Filler ${i},true,2024-01-05T09:00:00Z,1951-02-11,gold,Oslo,NO`);
  const tail = [...after.map(line), ...repeats.map((r) => line(before[r % before.length]!))];
  lines.push(...tail);
  const textPart = `${lines.join('\n')}\n`;
  const at = textPart.lastIndexOf('\nf1,') + 1;
  const bytes = Buffer.from(textPart, 'utf8');
  // one filler row's name gets a byte that is not UTF-8: that row must come as cells and be invalid
  const bad = Buffer.concat([
    bytes.subarray(0, at + (badByteAt % 3)),
    Buffer.from([0xff]),
    bytes.subarray(at + (badByteAt % 3)),
  ]);
  const path = join(dir, name);
  writeFileSync(path, bad);
  return path;
}

interface Outcome {
  summary: ImportSummary;
  sent: Map<string, string[]>;
  store: Map<string, unknown>;
  encoded: number;
}

async function importOnce(
  path: string,
  inWorker: boolean,
  duplicates: DuplicateRule,
  mapped = false,
): Promise<Outcome> {
  const stream = await readCandidates({
    path,
    mapFile: mapped ? MAPPING : undefined,
    parseAhead: true,
    csvWorker: inWorker ? 'always' : 'never',
    encodeEveryChunk: true,
    duplicates,
  });
  let encoded = 0;
  async function* counted(): AsyncGenerator<SourceRecord[]> {
    for await (const batch of stream.batches) {
      for (const record of batch) if (isEncoded(record)) encoded++;
      yield batch;
    }
  }
  const transport = new RecordingTransport();
  const summary = await runPipeline({
    chunks: { ...stream, batches: counted() },
    transport,
    batchSize: 16,
    concurrency: 4,
    duplicates: stream.duplicates,
    omitted: stream.omitted,
  });
  return { summary, sent: transport.sent, store: transport.store, encoded };
}

/** What must be equal between the two paths: every count and reason (not timings or batch counts). */
function accounting(summary: ImportSummary) {
  const { durationMs, batches, requests, concurrency, finalBatchSize, serverWait, ...rest } = summary;
  return rest;
}

describe('rows the CSV worker encodes', () => {
  afterAll(() => undefined);

  it('are sent byte for byte as the main thread sends them, in member order, accounted alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(validRow, { minLength: 1, maxLength: 40 }),
        fc.array(validRow, { maxLength: 120 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.nat(),
        fc.constantFrom<DuplicateRule>('last-wins', 'refuse', 'off'),
        fc.boolean(),
        async (before, after, repeats, badByteAt, rule, mapped) => {
          const path = csvFile(`p-${Math.random().toString(36).slice(2)}.csv`, before, after, repeats, badByteAt);
          const here = await importOnce(path, false, rule, mapped);
          const worker = await importOnce(path, true, rule, mapped);
          expect(here.encoded).toBe(0);
          // the filler after the first chunks at least: the encoder was loaded and used
          expect(worker.encoded).toBeGreaterThan(FILLER / 2);
          expect(accounting(worker.summary)).toEqual(accounting(here.summary));
          expect(worker.sent).toEqual(here.sent);
          expect(worker.store).toEqual(here.store);
          expect(here.summary.invalid).toBeGreaterThanOrEqual(1); // the row that is not UTF-8
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);
});

describe('a file imported into the sandbox both ways', () => {
  const boxes: SandboxHandle[] = [];
  afterAll(async () => {
    await Promise.all(boxes.map((box) => box.close()));
  });

  it('stores the same members, byte for byte', async () => {
    const rows: Row[] = [];
    for (let i = 0; i < 300; i++)
      rows.push({
        id: (i * 7) % 90,
        email: i % 5 === 0 ? '' : `p${i}@example.com`,
        firstName: ['Åsa', 'Zoë "Z"', 'a,b', '😀', `Name ${i}`][i % 5]!,
        isActive: i % 11 === 0 ? 'maybe' : 'true',
        createdAt: '2024-01-05T09:00:00Z',
        birthdate: i % 3 === 0 ? '' : '1951-02-11',
        tier: ['gold', 'silver', ''][i % 3]!,
        city: ['Oslo', 'København', 'Malmö'][i % 3]!,
        country: 'SE',
      });
    const path = csvFile('sandbox.csv', rows.slice(0, 100), rows.slice(100), [1, 2, 3, 50], 1);
    const stored: string[][] = [];
    for (const inWorker of [false, true]) {
      const box = await startSandbox({ host: '127.0.0.1', port: 0 });
      boxes.push(box);
      const stream = await readCandidates({
        path,
        parseAhead: true,
        csvWorker: inWorker ? 'always' : 'never',
        encodeEveryChunk: true,
      });
      const connection = client(box);
      const summary = await runPipeline({
        chunks: stream,
        transport: connection,
        batchSize: 50,
        concurrency: 4,
        duplicates: stream.duplicates,
        omitted: stream.omitted,
      });
      await connection.close();
      expect(summary.failed).toBe(0);
      stored.push(
        box
          .members()
          .map((member) => JSON.stringify(member))
          .sort(),
      );
    }
    expect(stored[0]!.length).toBeGreaterThan(FILLER);
    expect(stored[1]).toEqual(stored[0]);
  }, 120_000);
});
