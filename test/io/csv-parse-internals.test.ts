/**
 * Things no public API promises (issue 27 item 13; docs/decisions.md): the oracle of the CSV scanner's property
 * test (csv-parse-oracle.ts) drives csv-parse's `Parser.api.parse` with its live `info` counters, whose record count
 * it resets so that a row of another width costs no CsvError, and its end-of-field step with `state.wasQuoting` for
 * the null token; the reader uses Buffer's own `latin1Slice` / `ucs2Slice` / `utf8Slice` decoders
 * (csv-worker-messages.ts, csv-scanner.ts). csv-parse is pinned to an exact version in package.json (a
 * devDependency: the oracle); this file is what an upgrade must pass.
 */
import { parse } from 'csv-parse';
import { describe, expect, it } from 'vitest';
import { createCsvCore } from './csv-parse-oracle.js';

describe("csv-parse's internals, as the scanner's oracle drives them", () => {
  it('a Parser exposes api.parse and the live info counters', () => {
    const parser = parse({}) as unknown as { api?: { parse?: unknown }; info?: Record<string, unknown> };
    expect(typeof parser.api?.parse).toBe('function');
    expect(parser.info).toMatchObject({ records: 0, lines: expect.any(Number), empty_lines: 0 });
  });

  it('counts lines and empty lines as records come out, and resetting the record count skips width errors', () => {
    const core = createCsvCore({ delimiter: ',', maxRecordSize: 1024 });
    const seen: { cells: string[]; lines: number; empty: number }[] = [];
    const push = (cells: string[]) => seen.push({ cells, lines: core.info.lines, empty: core.info.empty_lines });
    expect(core.parse(Buffer.from('a,b,c\n\n1,2\n"x\ny",3,4,5\n'), true, push)).toBeUndefined();
    expect(seen).toEqual([
      { cells: ['a', 'b', 'c'], lines: 1, empty: 0 },
      { cells: ['1', '2'], lines: 3, empty: 1 },
      { cells: ['x\ny', '3', '4', '5'], lines: 5, empty: 1 },
    ]);
  });

  it("with a null token, api.__onField and state.wasQuoting tell each record's quoted cells equal to it", () => {
    const parser = parse({}) as unknown as { api?: { __onField?: unknown; state?: Record<string, unknown> } };
    expect(typeof parser.api?.__onField).toBe('function');
    expect(parser.api?.state).toMatchObject({ wasQuoting: false, record: [] });
    const core = createCsvCore({ delimiter: ',', maxRecordSize: 1024, nullToken: 'NULL' });
    const seen: [string[], number[] | undefined][] = [];
    const csv = 'a,b,c\nNULL,"NULL",x\n" NULL ","N""ULL",NULL\n"x\ny",NULL,"NULL"';
    expect(core.parse(Buffer.from(csv), true, (cells, quoted) => seen.push([cells, quoted]))).toBeUndefined();
    expect(seen).toEqual([
      [['a', 'b', 'c'], undefined],
      [['NULL', 'NULL', 'x'], [1]],
      [[' NULL ', 'N"ULL', 'NULL'], [0]],
      [['x\ny', 'NULL', 'NULL'], [2]],
    ]);
  });

  it('without the reset, csv-parse would refuse a row of another width even when relaxed (what the reset avoids)', () => {
    const parser = parse({ relax_column_count: false }) as unknown as {
      api: { parse(buf: Buffer, end: boolean, push: (r: string[]) => void, close: () => void): Error | undefined };
    };
    const error = parser.api.parse(
      Buffer.from('a,b\n1\n'),
      true,
      () => undefined,
      () => undefined,
    );
    expect((error as { code?: string } | undefined)?.code).toBe('CSV_RECORD_INCONSISTENT_FIELDS_LENGTH');
  });
});

describe("Buffer's own decoders", () => {
  it('latin1Slice, ucs2Slice and utf8Slice exist and agree with toString', () => {
    const buffer = Buffer.from('Zoë Ünal ∑ 😀', 'utf16le');
    const proto = Buffer.prototype as unknown as Record<string, (start: number, end: number) => string>;
    expect(typeof proto.latin1Slice).toBe('function');
    expect(typeof proto.ucs2Slice).toBe('function');
    expect(typeof proto.utf8Slice).toBe('function');
    const utf8 = Buffer.from('Zoë Ünal ∑ 😀 \xff', 'utf8');
    expect(proto.utf8Slice!.call(utf8, 1, 12)).toBe(utf8.toString('utf8', 1, 12));
    expect(proto.ucs2Slice!.call(buffer, 2, 10)).toBe(buffer.toString('utf16le', 2, 10));
    const latin = Buffer.from('Zoë Ünal', 'latin1');
    expect(proto.latin1Slice!.call(latin, 0, latin.length)).toBe('Zoë Ünal');
  });
});
