/**
 * The CSV scanner reads exactly as csv-parse did with the reader's options (csv-parse is the oracle here:
 * csv-parse-oracle.ts drives it as the reader used to). Random texts from a small alphabet of what matters (the
 * delimiter, quotes, \r, \n, \r\n, a BOM, NUL, multibyte and astral characters, bytes that are not UTF-8, spaces,
 * the null token) are fed to both in random chunks, cut anywhere (inside a character, inside \r\n), and must give
 * the same records, cells, quoted null tokens, line counters and errors.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CsvScanner } from '../../src/io/csv-scanner.js';
import { createCsvCore as csvParseCore } from './csv-parse-oracle.js';

interface Core {
  readonly info: { readonly lines: number; readonly empty_lines: number };
  parse(
    buf: Buffer | undefined,
    end: boolean,
    push: (cells: string[], quoted: number[] | undefined) => void,
  ): { code?: string } | undefined;
}

interface Options {
  delimiter: string;
  maxRecordSize: number;
  nullToken?: string;
}

/** Everything a caller can see: each record with the counters as it comes out, then the error or the end. */
function events(core: Core, chunks: Buffer[]): unknown[] {
  const seen: unknown[] = [];
  const push = (cells: string[], quoted: number[] | undefined): void => {
    seen.push({ cells: [...cells], quoted, lines: core.info.lines, empty: core.info.empty_lines });
  };
  for (const [index, chunk] of [...chunks, undefined].entries()) {
    const error = core.parse(chunk, index === chunks.length, push);
    // the line counter where an error stops is not compared: csv-parse stops at the byte, the scanner at the
    // cell's end or the chunk's; nothing reads it (the reader's message names the record's first line)
    if (error) return [...seen, { error: error.code, empty: core.info.empty_lines }];
  }
  return [...seen, { end: true, lines: core.info.lines, empty: core.info.empty_lines }];
}

function both(bytes: Buffer, cuts: number[], options: Options): { scanner: unknown[]; csvParse: unknown[] } {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(last, point));
    last = point;
  }
  return {
    scanner: events(new CsvScanner(options), chunks),
    csvParse: events(csvParseCore(options) as Core, chunks),
  };
}

const DELIMITERS = [',', ';', '\t', '|', ' ', '§', '€'];

/** Pieces of text: each is one "token" of the alphabet, some of them bytes that are not UTF-8. */
function pieces(delimiter: string): fc.Arbitrary<Buffer> {
  const text = (value: string) => fc.constant(Buffer.from(value, 'utf8'));
  return fc.oneof(
    { weight: 6, arbitrary: text(delimiter) },
    { weight: 6, arbitrary: text('"') },
    { weight: 3, arbitrary: text('""') },
    { weight: 3, arbitrary: text('\n') },
    { weight: 2, arbitrary: text('\r\n') },
    { weight: 2, arbitrary: text('\r') },
    {
      weight: 5,
      arbitrary: fc.constantFrom(...['a', 'bc', 'xyz0123456789long', 'M000000001'].map((v) => Buffer.from(v))),
    },
    { weight: 3, arbitrary: text(' ') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...['é', 'København', '∑', '😀', '\u2028', '\ufeff'].map((v) => Buffer.from(v))),
    },
    { weight: 2, arbitrary: fc.constantFrom(...['NULL', ' NULL ', 'null'].map((v) => Buffer.from(v))) },
    { weight: 1, arbitrary: text('\0') },
    // not UTF-8: a lone continuation byte, 0xFF, a cut 2- and 3-byte sequence, a surrogate encoded
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...[[0x80], [0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80]].map((bytes) => Buffer.from(bytes)),
      ),
    },
  );
}

const cases = fc
  .record({
    delimiter: fc.constantFrom(...DELIMITERS),
    bom: fc.boolean(),
    nullToken: fc.option(fc.constantFrom('NULL', 'null', ''), { nil: undefined }),
    maxRecordSize: fc.oneof(fc.constant(16 * 1024 * 1024), fc.integer({ min: 1, max: 40 })),
    seed: fc.integer(),
  })
  .chain((options) =>
    fc.record({
      options: fc.constant(options),
      parts: fc.array(pieces(options.delimiter), { maxLength: 60 }),
      cuts: fc.array(fc.nat(), { maxLength: 12 }),
    }),
  );

afterEach(() => vi.restoreAllMocks());

describe('the CSV scanner against csv-parse', () => {
  it('the same records, cells, null tokens, line counters and errors, in any chunks', () => {
    fc.assert(
      fc.property(cases, ({ options, parts, cuts }) => {
        const body = Buffer.concat(parts);
        // csv-parse reads a text starting with FF FE as UTF-16LE; the reader decodes such files before parsing
        fc.pre(!(body[0] === 0xff && body[1] === 0xfe));
        const bytes = options.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
        const { scanner, csvParse } = both(bytes, cuts, options);
        expect(scanner).toEqual(csvParse);
      }),
      { numRuns: 3000 },
    );
  });

  it('one byte at a time', () => {
    fc.assert(
      fc.property(cases, ({ options, parts }) => {
        const bytes = Buffer.concat(parts);
        fc.pre(!(bytes[0] === 0xff && bytes[1] === 0xfe));
        const { scanner, csvParse } = both(bytes, [...bytes.keys()], options);
        expect(scanner).toEqual(csvParse);
      }),
      { numRuns: 500 },
    );
  });

  it('a record of cells of 13 characters or more, across chunks, is the same (the cells are decoded on their own)', () => {
    const row =
      'M000000001,member1@example.com,Zoë Ünal-Kjærsgaard,"a ""quoted"" København cell of some length",😀😀😀😀😀😀😀\n';
    const bytes = Buffer.from(`h1,h2,h3,h4,h5\n${row.repeat(50)}`);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const cuts = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => i * size);
      const { scanner, csvParse } = both(bytes, cuts, { delimiter: ',', maxRecordSize: 1 << 24 });
      expect(scanner).toEqual(csvParse);
      expect(scanner).toHaveLength(52);
    }
  });

  it('known cases: a reopened quote, a NUL after a closing quote, a quote never closed, a record too large', () => {
    const read = (text: string, maxRecordSize = 1 << 24) =>
      events(new CsvScanner({ delimiter: ',', maxRecordSize, nullToken: 'NULL' }), [Buffer.from(text)]);
    expect(read('"ab"c,"a""b"c,"NULL"x\n')[0]).toMatchObject({
      cells: ['"ab"c', '"a"b"c', '"NULL"x'],
      quoted: undefined,
    });
    expect(read('"ab"\0c," NULL "\n')[0]).toMatchObject({ cells: ['ab\0c', ' NULL '], quoted: [1] });
    expect(read('a\n\n"x\r\ny",\r\n')).toEqual([
      { cells: ['a'], quoted: undefined, lines: 1, empty: 0 },
      { cells: ['x\r\ny', ''], quoted: undefined, lines: 5, empty: 1 },
      { end: true, lines: 6, empty: 2 },
    ]);
    expect(read('a\n"b,c\n')).toEqual([
      { cells: ['a'], quoted: undefined, lines: 1, empty: 0 },
      { error: 'CSV_QUOTE_NOT_CLOSED', empty: 0 },
    ]);
    expect(read('abcd,efgh\nabcd,efghi\n', 7)).toEqual([
      { cells: ['abcd', 'efgh'], quoted: undefined, lines: 1, empty: 0 },
      { error: 'CSV_MAX_RECORD_SIZE', empty: 0 },
    ]);
  });

  it("a cell held after its chunk is gone does not keep the chunk's text alive (a long cell is a string of its own)", () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const chunks = 400;
    const row = 'M0000000001,member@example.com,ab,København Ø\n';
    const chunk = Buffer.from(row.repeat(Math.ceil(65536 / row.length)));
    const usedAfter = (hold: boolean): number => {
      const held: string[][] = [];
      const scanner = new CsvScanner({ delimiter: ',', maxRecordSize: 1 << 24 });
      for (let i = 0; i < chunks; i++) {
        let first = true;
        scanner.parse(chunk, false, (cells) => {
          if (hold && first) held.push(cells);
          first = false;
        });
      }
      gc();
      gc();
      const used = getHeapStatistics().used_heap_size;
      expect(held.length).toBe(hold ? chunks : 0);
      return used;
    };
    const without = usedAfter(false);
    const withHeld = usedAfter(true);
    // each chunk's text is ~64 KB: 400 of them kept alive would be ~26 MB; the cells themselves are ~100 KB
    expect(withHeld - without).toBeLessThan(4 * 1024 * 1024);
  });

  it('a cell of many escaped quotes, across chunks, is gathered in one growing buffer, not a piece per quote', () => {
    // a piece per `""` made a 4 MB cell of them take 357 MB and 1 s; csv-parse grows one buffer too
    const from = vi.spyOn(Buffer, 'from');
    const alloc = vi.spyOn(Buffer, 'allocUnsafe');
    const bytes = Buffer.from(`a,"${'x""'.repeat(200_000)}",b\n`);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) =>
      bytes.subarray(i * 65536, (i + 1) * 65536),
    );
    const seen = events(new CsvScanner({ delimiter: ',', maxRecordSize: 1 << 24 }), chunks);
    expect(seen[0]).toMatchObject({ cells: ['a', 'x"'.repeat(200_000), 'b'] });
    expect(from.mock.calls.length + alloc.mock.calls.length).toBeLessThan(100);
  });
});
