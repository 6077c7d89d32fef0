/**
 * The input side of a nightly sync: --empty-as-null (and `--null-token ''`, which means the same), its place in
 * the --changed-only source key, an export that ends mid-record, and the shrink guard's record count.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { createRecordMapper } from '../../src/core/mapping/index.js';
import { readCandidates } from '../../src/core/read-candidates.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { countRows, CsvRecordCounter } from '../../src/io/count-rows.js';
import { readAll, readCsvText, tempDir } from '../io/reader-helpers.js';

const HEADERS = ['memberId', 'isActive', 'createdAt', 'email', 'isEmployee', 'address.city', 'metadata.tier'];
const row = (cells: string[]) => ({ record: 1, line: 2, raw: cells });
const files = tempDir('nightly-input');
afterAll(() => files.remove());

describe('--empty-as-null', () => {
  const cells = ['m1', 'true', '2024-01-01', '', '', '', ''];

  it('leaves an empty cell out by default, and sends it as null (clearing the field) with the option', () => {
    const plain = createRecordMapper('csv', HEADERS, { file: 'x.csv' }).toCandidate(row(cells));
    expect(plain).toMatchObject({ valid: true, item: { memberId: 'm1' } });
    expect(plain.valid && 'email' in plain.item).toBe(false);

    const clearing = createRecordMapper('csv', HEADERS, { file: 'x.csv', emptyAsNull: true }).toCandidate(row(cells));
    expect(clearing).toMatchObject({
      valid: true,
      item: { email: null, address: { city: null }, metadata: { tier: null } },
    });
    // a field that takes no null (isEmployee) stays "not given" rather than turning the row invalid
    expect(clearing.valid && 'isEmployee' in clearing.item).toBe(false);
  });

  it("takes --null-token '' to mean exactly that, never ignoring it", () => {
    const viaToken = createRecordMapper('csv', HEADERS, { file: 'x.csv', nullToken: '' }).toCandidate(row(cells));
    expect(viaToken).toMatchObject({ valid: true, item: { email: null, metadata: { tier: null } } });
  });

  it('changes the --changed-only source key, so a row compared before the option is not called unchanged', () => {
    const key = (options: object) =>
      createRecordMapper('csv', HEADERS, { file: 'x.csv', ...options }).sourceKey!(row(cells))!.key;
    expect(key({ emptyAsNull: true })).not.toBe(key({}));
    expect(key({ emptyAsNull: true })).toBe(key({ nullToken: '' }));
  });

  it('is refused for JSON input, which says null itself', () => {
    expect(() => createRecordMapper('ndjson', undefined, { file: 'x.ndjson', emptyAsNull: true })).toThrow(
      /--empty-as-null applies to CSV input only/,
    );
  });
});

describe('an export that ends mid-record', () => {
  it('marks the last record when no line break follows it, whatever the chunking', async () => {
    for (const chunk of [1, 7, 1 << 16]) {
      const cut = await readCsvText('memberId,tier\nm1,Gold\nm2,Go', chunk);
      expect(cut.records.map((r) => r.unterminated)).toEqual([undefined, true]);
      const whole = await readCsvText('memberId,tier\nm1,Gold\nm2,Gold\r\n', chunk);
      expect(whole.records.map((r) => r.unterminated)).toEqual([undefined, undefined]);
    }
  });

  it('warns once read, and with holdUnterminated makes that record invalid instead of sending "Go"', async () => {
    const path = files.write(
      'cut.csv',
      'memberId,isActive,createdAt,metadata.tier\nm1,true,2024-01-01,Gold\nm2,true,2024-01-01,Go',
    );
    const warnings: string[] = [];
    const stream = await readCandidates({
      path,
      onEndWarning: (message) => warnings.push(message),
      holdUnterminated: true,
    });
    const candidates = [];
    for await (const candidate of stream.candidates) candidates.push(candidate);
    expect(candidates.map((c) => c.valid)).toEqual([true, false]);
    expect(candidates[1]).toMatchObject({ memberId: 'm2', issues: [{ rule: 'unterminated last record' }] });
    expect(warnings).toEqual([expect.stringMatching(/cut\.csv line 3: the file ends without a line break/)]);
    expect(stream.end.unterminated).toBe(true);

    // validate says the same (and still finds the record valid: it sends nothing)
    const events: { type: string; message?: string }[] = [];
    await validateFile({ path }, (event) => void events.push(event as { type: string; message?: string }));
    expect(events.filter((e) => e.type === 'warning').map((e) => e.message)).toEqual([
      expect.stringMatching(/line 3: the file ends without a line break/),
    ]);
  });

  it('warns about a header and no records', async () => {
    const path = files.write('empty.csv', 'memberId,isActive,createdAt\n');
    const warnings: string[] = [];
    const stream = await readCandidates({ path, onEndWarning: (message) => warnings.push(message) });
    for await (const candidate of stream.candidates) expect(candidate).toBeUndefined();
    expect(warnings).toEqual([
      'empty.csv line 1: a header and no records: nothing to import'.replace('empty.csv', path),
    ]);
  });
});

describe("the shrink guard's count", () => {
  it('counts records in plain and gzip files (a quoted cell that spans lines is one), and nothing it cannot read twice', async () => {
    const text = 'memberId,notes\nm1,"two\nlines"\nm2,x\nm3,y';
    expect(await countRows(files.write('a.csv', text), 'csv')).toEqual({ rows: 3 });
    expect(await countRows(files.write('a.csv.gz', gzipSync(`${text}\n`)), 'csv')).toEqual({ rows: 3 });
    expect(await countRows(files.write('a.ndjson', '{"a":1}\n{"a":2}\n'), 'ndjson')).toEqual({ rows: 2 });
    expect(await countRows(files.write('h.csv', 'memberId\n'), 'csv')).toEqual({ rows: 0 });
    expect(await countRows('-', 'csv')).toBeUndefined();
    expect(await countRows(files.write('a.json', '[]'), 'json')).toBeUndefined();
  });

  it('reads quotes and line ends as the reader does: "" inside quotes, a quote inside an unquoted cell, CR, CRLF, blank lines', async () => {
    const cases: [string, string, number][] = [
      ['a,b\r\n1,"x\r\ny"\r\n\r\n2,z\r\n', ',', 2],
      ['a,b\r1,"x\ry"\r2,z\r', ',', 2],
      ['a,b\n1,"say ""hi""\n and go"\n2,z', ',', 2],
      ['a,b\n1,5" disk\n2,z\n', ',', 2],
      ['a;b\n1;"x\ny"\n2;"q"\n', ';', 2],
      ['a,b\n1,"never closed\n2,z\n', ',', 1],
    ];
    for (const [text, delimiter, rows] of cases) {
      expect(await countRows(files.write('q.csv', text), 'csv', { delimiter }), JSON.stringify(text)).toEqual({ rows });
    }
    const wide = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,"\u220a\n\u0a22"\n2,z\n', 'utf16le')]);
    expect(await countRows(files.write('w.csv', wide), 'csv', { encoding: 'utf-16le' })).toEqual({ rows: 2 });
  });

  it('equals the records the reader reads, for any mix of quotes, delimiters and line breaks in cells', async () => {
    const cell = fc.stringMatching(/^[a-z ",;\r\n]{0,6}$/);
    const quoted = (value: string) =>
      /[",\r\n]/.test(value) || value.trim() !== value ? `"${value.replaceAll('"', '""')}"` : value;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell, cell), { minLength: 0, maxLength: 12 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        async (rows, eol) => {
          const text =
            ['id,notes', ...rows.map(([a, b], i) => `m${i},${quoted(a)}${b === '' ? '' : `,${quoted(b)}`}`)].join(eol) +
            eol;
          const path = files.write('p.csv', text);
          const read = await readAll({ path });
          expect((await countRows(path, 'csv'))?.rows).toBe(read.records.length);
          // and cut into chunks anywhere (a CRLF, a "" or a quoted cell across two reads)
          const bytes = Buffer.from(text);
          for (const size of [1, 2, 3, 7]) {
            const counter = new CsvRecordCounter(',');
            for (let at = 0; at < bytes.length; at += size) counter.feed(bytes.subarray(at, at + size));
            expect(counter.end() - 1).toBe(read.records.length);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('is never below the records the reader reads, for any text of quotes, delimiters, spaces and line breaks', async () => {
    const piece = fc.constantFrom('a', '"', '""', ',', ' ', '\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 30 }), async (pieces) => {
        const path = files.write('h.csv', `id,notes\n${pieces.join('')}\n`);
        const read = await readAll({ path }).catch((error: unknown) => ({ records: [], error }));
        fc.pre(read.error === undefined); // a quote never closed: the run itself stops there
        expect((await countRows(path, 'csv'))!.rows).toBeGreaterThanOrEqual(read.records.length);
      }),
      { numRuns: 200 },
    );
  });
});
