/**
 * Property tests: random records written as CSV / NDJSON / JSON come back from the readers exactly, each with its
 * number and physical line; random bytes never crash a reader (records, error records, or an InputError, nothing else).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import type { InputFormat } from '../../src/io/source.js';
import { readAll, stdinOf } from './reader-helpers.js';

const cellChar = fc.oneof(
  fc.constantFrom('a', 'Z', '0', ' ', ',', ';', '\t', '|', '"', '\n', '\r', '\r\n', 'é', '会', '😀', '\ufeff'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const cell = fc.array(cellChar, { maxLength: 8 }).map((parts) => parts.join(''));

function quote(value: string, delimiter: string, force: boolean): string {
  const needed = force || value === '' || /["\r\n]/.test(value) || value.includes(delimiter) || value !== value.trim();
  return needed ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Physical line breaks in a value: \r\n, \n and a lone \r count once each. */
const lineBreaks = (value: string) => value.match(/\r\n|\n|\r/g)?.length ?? 0;

describe('readers: property tests', () => {
  it('CSV: random records round-trip with their numbers and start lines, whatever the delimiter, line end, BOM and chunking', async () => {
    const table = fc.integer({ min: 1, max: 5 }).chain((width) =>
      fc.record({
        width: fc.constant(width),
        rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 12 }),
        delimiter: fc.constantFrom(',', ';', '\t', '|'),
        eol: fc.constantFrom('\n', '\r\n'),
        bom: fc.boolean(),
        blanks: fc.array(fc.nat(2), { minLength: 13, maxLength: 13 }),
        forceQuotes: fc.boolean(),
        chunkSize: fc.constantFrom(1, 2, 5, 64, 1 << 16),
      }),
    );
    await fc.assert(
      fc.asyncProperty(table, async ({ width, rows, delimiter, eol, bom, blanks, forceQuotes, chunkSize }) => {
        const headers = Array.from({ length: width }, (_, i) => `col${i}`);
        let text = (bom ? '\ufeff' : '') + headers.join(delimiter) + eol;
        let line = 2;
        const expected: { record: number; line: number; raw: string[] }[] = [];
        rows.forEach((row, i) => {
          text += eol.repeat(blanks[i]!);
          line += blanks[i]!;
          expected.push({ record: i + 1, line, raw: row });
          text += row.map((v) => quote(v, delimiter, forceQuotes)).join(delimiter) + eol;
          line += 1 + row.reduce((n, v) => n + lineBreaks(v), 0);
        });
        text += eol.repeat(blanks[12]!);
        // with a single column the header holds no delimiter to detect
        const { source, records, error } = await readAll({
          path: '-',
          format: 'csv',
          stdin: stdinOf(text, chunkSize),
          delimiter: width === 1 ? delimiter : undefined,
        });
        expect(error).toBeUndefined();
        expect(source.headers).toEqual(headers);
        expect(records).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('NDJSON and JSON arrays: random JSON values round-trip, every record accounted for', async () => {
    const input = fc.record({
      values: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 10 }),
      blanks: fc.array(fc.nat(2), { minLength: 10, maxLength: 10 }),
      indent: fc.constantFrom(0, 2),
      chunkSize: fc.constantFrom(1, 3, 64, 1 << 16),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ values, blanks, indent, chunkSize }) => {
        const roundTripped = values.map((v) => JSON.parse(JSON.stringify(v)) as unknown);
        let ndjson = '';
        let line = 1;
        const lines: number[] = [];
        values.forEach((value, i) => {
          ndjson += '\n'.repeat(blanks[i]!);
          line += blanks[i]!;
          lines.push(line);
          ndjson += `${JSON.stringify(value)}\n`;
          line++;
        });
        const fromNdjson = await readAll({
          path: '-',
          format: 'ndjson',
          stdin: stdinOf(ndjson || '\n', chunkSize),
        }).catch((e: unknown) => e);
        if (values.length === 0) expect(fromNdjson).toBeInstanceOf(InputError);
        else {
          const { records, error } = fromNdjson as Awaited<ReturnType<typeof readAll>>;
          expect(error).toBeUndefined();
          expect(records).toEqual(roundTripped.map((raw, i) => ({ record: i + 1, line: lines[i], raw })));
        }
        const json = JSON.stringify(values, null, indent);
        const fromJson = await readAll({ path: '-', format: 'json', stdin: stdinOf(json, chunkSize) });
        expect(fromJson.error).toBeUndefined();
        expect(fromJson.records.map((r) => [r.record, r.raw, r.error])).toEqual(
          roundTripped.map((raw, i) => [i + 1, raw, undefined]),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('random bytes never crash a reader: records with consecutive numbers, error records, or an InputError', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      // text-like input reaches deeper into the parsers than uniform bytes
      fc
        .array(
          fc.constantFrom(
            '[',
            ']',
            '{',
            '}',
            '"',
            '\\',
            ',',
            ';',
            '\n',
            '\r',
            ' ',
            'a',
            '1',
            ':',
            '\ufeff',
            'é',
            '\u0000',
          ),
          { maxLength: 200 },
        )
        .map((parts) => new Uint8Array(Buffer.from(parts.join('')))),
    );
    const format = fc.constantFrom<InputFormat | undefined>('csv', 'json', 'ndjson', undefined);
    await fc.assert(
      fc.asyncProperty(bytes, format, fc.constantFrom(1, 7, 1 << 16), async (content, fmt, chunkSize) => {
        let result;
        try {
          result = await readAll({ path: '-', format: fmt, stdin: stdinOf(Buffer.from(content), chunkSize) });
        } catch (error) {
          expect(error).toBeInstanceOf(InputError);
          return;
        }
        if (result.error !== undefined) expect(result.error).toBeInstanceOf(InputError);
        result.records.forEach((record, i) => {
          expect(record.record).toBe(i + 1);
          expect(record.line).toBeGreaterThanOrEqual(1);
          if (record.error) expect(typeof record.error.message).toBe('string');
        });
      }),
      { numRuns: 400 },
    );
  });
});
