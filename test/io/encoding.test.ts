/** Encodings: --encoding through iconv-lite, UTF-16 by its BOM, files that are not text named for what they are. */
import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { openRejectsWriter } from '../../src/io/rejects-writer.js';
import { readFileSync } from 'node:fs';
import { readAll, stdinOf, tempDir } from './reader-helpers.js';

const dir = tempDir('encoding');
afterAll(() => dir.remove());

const TEXT =
  'memberId;firstName;lastName;isActive;createdAt\r\nm-1;Zoë;Müller;yes;2024-05-01\r\nm-2;François;Ørsted;no;2024-05-02\r\n';
const CELLS = [
  ['m-1', 'Zoë', 'Müller', 'yes', '2024-05-01'],
  ['m-2', 'François', 'Ørsted', 'no', '2024-05-02'],
];
const failure = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe('input encodings', () => {
  it('windows-1252 with --encoding; without it, each record is invalid and the file is summarised once (first bad byte, count)', async () => {
    const path = dir.write('excel.csv', iconv.encode(TEXT, 'windows-1252'));
    const read = await readAll({ path, encoding: 'windows-1252' });
    expect(read.source.headers).toEqual(['memberId', 'firstName', 'lastName', 'isActive', 'createdAt']);
    expect(read.records.map((r) => r.raw)).toEqual(CELLS);
    expect(read.source.encoding).toEqual({ name: 'windows-1252', bom: false });
    expect(read.source.invalidUtf8()).toBeUndefined();
    const plain = await readAll({ path });
    expect(plain.records.map((r) => [r.error?.message, r.error?.hint, r.error?.cause])).toEqual([
      ['not valid UTF-8 (byte 0xEB on line 2)', undefined, 'invalid-utf8'],
      ['not valid UTF-8 (byte 0xE7 on line 3)', undefined, 'invalid-utf8'],
    ]);
    const offset = TEXT.indexOf('ë'); // one byte a character in windows-1252
    expect(plain.source.invalidUtf8()).toEqual({ first: { line: 2, byte: 0xeb, offset }, mixed: false });
  });

  it.each(['csv', 'ndjson', 'json'] as const)(
    '%s: the first bad byte and the bad records are the same in any chunking; real UTF-8 beside it is "mixed"',
    async (format) => {
      const rows = ['{"memberId":"Zo\u00eb"}', '{"memberId":"Ren\u00e9"}', '{"memberId":"Ren\u00e9 2"}'];
      const body =
        format === 'csv'
          ? 'memberId\nZoë\nRené\nRené 2\n'
          : format === 'json'
            ? `[${rows.join(',\n')}]\n`
            : `${rows.join('\n')}\n`;
      const text = body.replace(/\\u00eb/, 'ë').replace(/\\u00e9/g, 'é');
      // the first row in UTF-8, the others in windows-1252
      const cut = text.indexOf('\n', text.indexOf('ë')) + 1;
      const bytes = Buffer.concat([Buffer.from(text.slice(0, cut)), iconv.encode(text.slice(cut), 'windows-1252')]);
      const offset = Buffer.byteLength(text.slice(0, text.indexOf('é')));
      for (const chunkSize of [1, 3, 1 << 16]) {
        const { source, records } = await readAll({ path: '-', format, stdin: stdinOf(bytes, chunkSize) });
        expect(records.filter((r) => r.error?.cause === 'invalid-utf8').length).toBe(2);
        expect(source.invalidUtf8()).toEqual({
          first: { line: format === 'csv' ? 3 : 2, byte: 0xe9, offset },
          mixed: true,
        });
      }
    },
  );

  it.each(['utf-16le', 'utf-16be'] as const)(
    '%s is recognised by its BOM, from a file and from stdin in odd chunks',
    async (encoding) => {
      const bytes = iconv.encode(TEXT, encoding, { addBOM: true });
      const read = await readAll({ path: dir.write(`${encoding}.csv`, bytes) });
      expect(read.records.map((r) => r.raw)).toEqual(CELLS);
      expect(read.records.map((r) => r.line)).toEqual([2, 3]);
      expect(read.source.encoding).toEqual({ name: encoding, bom: true });
      const piped = await readAll({ path: '-', stdin: stdinOf(bytes, 7) });
      expect(piped.records.map((r) => r.raw)).toEqual(CELLS);
    },
  );

  it.each(['utf-32le', 'utf-32be'] as const)(
    '%s is recognised by its BOM (not taken for UTF-16), and an --encoding naming it agrees',
    async (encoding) => {
      const bytes = iconv.encode(TEXT, encoding, { addBOM: true });
      const path = dir.write(`${encoding}.csv`, bytes);
      const read = await readAll({ path });
      expect(read.records.map((r) => r.raw)).toEqual(CELLS);
      expect(read.source.encoding).toEqual({ name: encoding, bom: true });
      expect((await readAll({ path: '-', stdin: stdinOf(bytes, 3) })).records.map((r) => r.raw)).toEqual(CELLS);
      expect(
        (await readAll({ path, encoding: encoding.replace('-', '').toUpperCase() })).records.map((r) => r.raw),
      ).toEqual(CELLS);
    },
  );

  it('UTF-16 JSON too', async () => {
    const bytes = iconv.encode(JSON.stringify([{ memberId: 'm-1', firstName: 'Zoë' }]), 'utf-16le', { addBOM: true });
    const read = await readAll({ path: dir.write('u16.json', bytes) });
    expect(read.records.map((r) => r.raw)).toEqual([{ memberId: 'm-1', firstName: 'Zoë' }]);
  });

  it('UTF-16 without a BOM is named as UTF-16, with the flag that reads it; with the flag it reads', async () => {
    const path = dir.write('nobom.csv', iconv.encode(TEXT, 'utf-16le'));
    const error = await failure(readAll({ path }));
    expect(error).toBeInstanceOf(InputError);
    expect(error!.message).toBe(`${path} looks like UTF-16LE text without a byte order mark`);
    expect((error as InputError).hint).toBe('Read it with --encoding utf-16le.');
    expect((await readAll({ path, encoding: 'utf-16le' })).records.map((r) => r.raw)).toEqual(CELLS);
  });

  it.each(['utf-32le', 'utf-32be'] as const)(
    '%s without a BOM is named too (not read as UTF-8 with NULs); with the flag it reads',
    async (encoding) => {
      const path = dir.write(`nobom-${encoding}.csv`, iconv.encode(TEXT, encoding));
      const error = await failure(readAll({ path }));
      expect(error).toBeInstanceOf(InputError);
      expect(error!.message).toBe(`${path} looks like ${encoding.toUpperCase()} text without a byte order mark`);
      expect((error as InputError).hint).toBe(`Read it with --encoding ${encoding}.`);
      expect((await readAll({ path, encoding })).records.map((r) => r.raw)).toEqual(CELLS);
    },
  );

  it('a workbook or archive is named for what it is, never with an encoding hint', async () => {
    const zipHead = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.alloc(26),
      Buffer.from('[Content_Types].xml xl/workbook.xml'),
    ]);
    const cases: [string, Buffer, string][] = [
      ['saved-as.csv', zipHead, 'is an Excel workbook (.xlsx)'],
      [
        'old.xls',
        Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(100)]),
        'is an Excel 97–2003 workbook (.xls), which memberctl does not read',
      ],
      [
        'sheet.ods',
        Buffer.concat([
          Buffer.from([0x50, 0x4b, 0x03, 0x04]),
          Buffer.alloc(26),
          Buffer.from('mimetypeapplication/vnd.oasis.opendocument.spreadsheet'),
        ]),
        'is an OpenDocument spreadsheet (.ods)',
      ],
      [
        'list.numbers',
        Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('Index/Document.iwa')]),
        'is an Apple Numbers document',
      ],
    ];
    for (const [name, bytes, what] of cases) {
      const error = await failure(readAll({ path: dir.write(name, bytes) }));
      expect(error, name).toBeInstanceOf(InputError);
      expect(error!.message).toContain(what);
      expect(`${error!.message} ${(error as InputError).hint}`).not.toMatch(/iconv|--encoding|not valid UTF-8/i);
    }
  });

  it('an unknown --encoding is a usage error with a did-you-mean; a BOM that contradicts it too', async () => {
    const path = dir.write('plain.csv', TEXT);
    const unknown = await failure(readAll({ path, encoding: 'windows1525' }));
    expect(unknown).toBeInstanceOf(UsageError);
    expect(unknown!.message).toBe('--encoding windows1525: unknown encoding (did you mean windows-1252?)');
    const bom = dir.write('bom16.csv', iconv.encode(TEXT, 'utf-16le', { addBOM: true }));
    expect((await failure(readAll({ path: bom, encoding: 'windows-1252' })))!.message).toContain(
      'starts with a UTF-16LE byte order mark, but --encoding says windows-1252',
    );
  });
});

describe('the rejects CSV', () => {
  it.each([
    [{ name: 'windows-1252', bom: false }, 'windows-1252'],
    [{ name: 'utf-16le', bom: true }, 'utf-16le'],
    [{ name: 'utf-8', bom: true }, 'utf-8'],
  ] as const)("is written in the input's encoding, with its BOM (%j)", async (encoding, iconvName) => {
    const path = dir.path(`rejects-${encoding.name}-${encoding.bom}.csv`);
    const writer = await openRejectsWriter(path, { headers: ['memberId', 'firstName'], delimiter: ';', encoding });
    await writer.write({
      record: 1,
      line: 2,
      memberId: 'm-1',
      stage: 'invalid',
      reason: 'isActive: required',
      input: ['m-1', 'Zoë'],
    });
    await writer.close();
    const bytes = readFileSync(path);
    const bom = iconv.encode('', iconvName, { addBOM: true });
    expect(bom.length > 0 && bytes.subarray(0, bom.length).equals(bom)).toBe(encoding.bom);
    expect(iconv.decode(bytes, iconvName)).toBe('memberId;firstName;stage;error\nm-1;Zoë;invalid;isActive: required\n');
  });

  it.each(['utf-16le', 'utf-32be'])(
    '%s read by --encoding without a BOM is written with one, so that it reads back without the flag',
    async (name) => {
      const path = dir.path(`rejects-${name}-nobom.csv`);
      const writer = await openRejectsWriter(path, {
        headers: ['memberId'],
        delimiter: ',',
        encoding: { name, bom: false },
      });
      await writer.close();
      const bytes = readFileSync(path);
      expect(bytes.subarray(0, 4).equals(iconv.encode('m', name, { addBOM: true }).subarray(0, 4))).toBe(true);
      expect((await readAll({ path })).source.encoding).toEqual({ name, bom: true });
    },
  );
});
