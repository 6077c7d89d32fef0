/** The UTF-8 checker against a whole-buffer reference: the same first bad byte (line, offset) and "mixed", however the bytes are cut. */
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidByte, Utf8LineChecker } from '../../src/io/utf8-check.js';

/** Pieces that make real exports: ASCII, newlines, well-formed UTF-8, windows-1252 bytes, cut and malformed sequences. */
const piece = fc.oneof(
  fc.constantFrom('a', 'Zoë', '\n', '\r\n', '\r', '会員', '😀').map((text) => Buffer.from(text)),
  fc
    .constantFrom(
      [0xe9],
      [0xf6, 0x72],
      [0x80],
      [0xc3],
      [0xe4, 0xbc],
      [0xf0, 0x9f, 0x98],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xff],
    )
    .map((bytes) => Buffer.from(bytes)),
);

/** Whether the buffer holds at least one well-formed multi-byte sequence, read left to right as the checker reads. */
function holdsMultibyte(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b < 0xc2 || b > 0xf4) continue;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    if (isUtf8(buf.subarray(i, i + length)) && i + length <= buf.length) return true;
  }
  return false;
}

describe('Utf8LineChecker', () => {
  it('counts a lone \\r as a line break for CSV records: a bad byte three rows down is claimed by its own row', () => {
    const checker = new Utf8LineChecker();
    checker.check(Buffer.from('id,x\ra,1\rb,2\rc,\xff\r', 'latin1'));
    checker.end();
    expect(checker.claim(1)).toBeUndefined(); // the header
    expect(checker.claim(3)).toBeUndefined(); // rows a and b
    expect(checker.claim(4)).toMatchObject({ line: 4, byte: 0xff });
  });

  it('for CSV, speaks of the lines records claimed, not of the bytes read ahead of them (--limit, the parsing worker)', () => {
    const checker = new Utf8LineChecker();
    checker.check(
      Buffer.concat([
        Buffer.from('id,name\n1,Ren'),
        Buffer.from([0xe9]),
        Buffer.from('\n2,Bo\n3,Zo\u00eb\n4,'),
        Buffer.from([0xff]),
        Buffer.from('\n'),
      ]),
    );
    checker.end();
    expect(checker.summary()).toBeUndefined(); // nothing claimed yet: only read ahead
    checker.claim(1);
    expect(checker.summary()).toBeUndefined(); // the header is UTF-8
    expect(checker.claim(2)).toMatchObject({ line: 2, byte: 0xe9 });
    expect(checker.summary()).toEqual({ first: { line: 2, byte: 0xe9, offset: 13 }, mixed: false });
    checker.claim(3);
    expect(checker.summary()).toMatchObject({ mixed: false });
    checker.claim(4); // Zoë: real UTF-8 on a line a record read
    expect(checker.summary()).toMatchObject({ first: { line: 2 }, mixed: true });
  });

  it.each([true, false])(
    'finds the first bad byte and whether real UTF-8 is there too, at any chunking (lines kept: %s)',
    (keepLines) => {
      fc.assert(
        fc.property(
          fc.array(piece, { maxLength: 30 }),
          fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }),
          (pieces, cuts) => {
            const bytes = Buffer.concat(pieces);
            const checker = new Utf8LineChecker();
            if (!keepLines) checker.firstOnly();
            for (let at = 0, k = 0; at < bytes.length; k++) {
              const size = cuts[k % cuts.length]!;
              checker.check(bytes.subarray(at, at + size));
              at += size;
            }
            checker.end();
            if (keepLines) checker.claim(Infinity); // a CSV reader that read every line as records
            const summary = checker.summary();
            if (isUtf8(bytes)) {
              expect(summary).toBeUndefined();
              return;
            }
            const offset = firstInvalidByte(bytes);
            // a CSV parser's lines (\n, \r\n, a lone \r) when lines are kept for CSV records; line feeds for JSON
            const before = bytes.subarray(0, offset).toString('latin1');
            const line = 1 + ((keepLines ? before.match(/\r\n|\n|\r/g) : before.match(/\n/g))?.length ?? 0);
            expect(summary!.first).toEqual({ line, byte: bytes[offset], offset });
            expect(summary!.mixed).toBe(holdsMultibyte(bytes));
          },
        ),
        { numRuns: 500 },
      );
    },
  );
});
