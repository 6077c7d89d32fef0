/**
 * The input side of a nightly sync: --empty-as-null (and `--null-token ''`, which means the same), its place in
 * the --changed-only source key, an export that ends mid-record, and the shrink guard's line count.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { createRecordMapper } from '../../src/core/mapping/index.js';
import { readCandidates } from '../../src/core/read-candidates.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { countRows } from '../../src/io/count-rows.js';
import { readCsvText, tempDir } from '../io/reader-helpers.js';

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
  it('counts lines (an upper bound on records) in plain and gzip files, and nothing it cannot read twice', async () => {
    const text = 'memberId,notes\nm1,"two\nlines"\nm2,x\nm3,y';
    expect(await countRows(files.write('a.csv', text), 'csv')).toEqual({ lines: 5, rows: 4 });
    expect(await countRows(files.write('a.csv.gz', gzipSync(`${text}\n`)), 'csv')).toEqual({ lines: 5, rows: 4 });
    expect(await countRows(files.write('a.ndjson', '{"a":1}\n{"a":2}\n'), 'ndjson')).toEqual({ lines: 2, rows: 2 });
    expect(await countRows(files.write('h.csv', 'memberId\n'), 'csv')).toEqual({ lines: 1, rows: 0 });
    expect(await countRows('-', 'csv')).toBeUndefined();
    expect(await countRows(files.write('a.json', '[]'), 'json')).toBeUndefined();
  });
});
