import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/io/json-duplicate-keys.js';
import { InputError } from '../../src/errors.js';
import { readAll, stdinOf } from './reader-helpers.js';

const readJson = (text: string | Buffer, chunkSize?: number) =>
  readAll({ path: '-', format: 'json', stdin: stdinOf(text, chunkSize) });
const readNdjson = (text: string | Buffer, chunkSize?: number) =>
  readAll({ path: '-', format: 'ndjson', stdin: stdinOf(text, chunkSize) });
const summary = (records: { record: number; line: number; raw: unknown; error?: { message: string } }[]) =>
  records.map((r) => (r.error ? [r.record, r.line, 'error', r.error.message] : [r.record, r.line, r.raw]));

describe('JSON array reader', () => {
  it('streams each element with the line it starts on, across any chunk boundaries', async () => {
    const text =
      '\ufeff[\n  {"memberId": "a", "note": "x, y ] } \\" {"},\n  {\n    "memberId": "b",\n    "tags": [1, [2]]\n  }\n  ,"str", 3, null\n]\n';
    for (const chunkSize of [1, 5, 1 << 16]) {
      const { records, error } = await readJson(text, chunkSize);
      expect(error).toBeUndefined();
      expect(summary(records)).toEqual([
        [1, 2, { memberId: 'a', note: 'x, y ] } " {' }],
        [2, 3, { memberId: 'b', tags: [1, [2]] }],
        [3, 7, 'str'],
        [4, 7, 3],
        [5, 7, null],
      ]);
    }
  });

  it('a malformed element is one error record (with its line) and the next ones are read', async () => {
    const { records, error } = await readJson(
      '[\n{"memberId":"a"},\n{"memberId":\n  "b",,},\n{memberId:"c"},\n,\n{"memberId":"d"}\n]',
    );
    expect(error).toBeUndefined();
    expect(summary(records)).toEqual([
      [1, 2, { memberId: 'a' }],
      [2, 3, 'error', expect.stringMatching(/^not valid JSON \(line 4\): /)],
      [3, 5, 'error', "not valid JSON (character 2 of the record): Expected property name or '}'"],
      [4, 6, 'error', 'an empty element (two commas in a row)'],
      [5, 7, { memberId: 'd' }],
    ]);
    expect(records[1]!.raw).toBe('{"memberId":\n  "b",,}');
  });

  it('an empty array is 0 records; a trailing comma loses nothing', async () => {
    expect((await readJson(' [ ] ')).records).toEqual([]);
    expect(summary((await readJson('[1,2,]')).records)).toEqual([
      [1, 1, 1],
      [2, 1, 2],
    ]);
  });

  it('a truncated array: the records before it, then an InputError naming where the unfinished element starts', async () => {
    const { records, error } = await readAll({ path: 'fixtures/invalid/truncated.json' });
    expect(records.map((r) => r.raw)).toEqual([{ memberId: 't-1', isActive: true, createdAt: '2024-01-05T09:00:00Z' }]);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      'fixtures/invalid/truncated.json line 3: the file ends inside the array, inside the element that starts at line 3: truncated?',
    );
    const afterComma = await readJson('[1,\n');
    expect((afterComma.error as InputError).message).toBe(
      'stdin line 2: the file ends inside the array, after a comma: truncated?',
    );
  });

  it('a top level that is not an array is an InputError with a hint towards NDJSON', async () => {
    const { error } = await readAll({ path: 'fixtures/invalid/not-array.json' });
    expect(error).toMatchObject({
      code: 'input-json',
      line: 1,
      message: 'fixtures/invalid/not-array.json line 1: the top level is an object, not an array',
    });
    expect((error as InputError).hint).toMatch(/ndjson/);
    expect((await readJson('\n\n"x"')).error).toMatchObject({
      message: 'stdin line 3: the top level is a string, not an array',
    });
  });

  it('content after the array is an InputError (after the records)', async () => {
    const { records, error } = await readJson('[1]\n[2]');
    expect(records).toHaveLength(1);
    expect(error).toMatchObject({ code: 'input-json', line: 2 });
  });

  it('invalid UTF-8 inside an element makes that element an error record', async () => {
    const text = Buffer.concat([
      Buffer.from('[{"n":"a"},\n{"n":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"},{"n":"ö"}]'),
    ]);
    const { records } = await readJson(text, 3);
    expect(summary(records)).toEqual([
      [1, 1, { n: 'a' }],
      [2, 2, 'error', 'not valid UTF-8 (byte 0xC3 on line 2)'],
      [3, 2, { n: 'ö' }],
    ]);
  });

  it('an element over 16 MB is an error record; the scanner goes on', async () => {
    const big = 'x'.repeat(17 * 1024 * 1024);
    const { records, error } = await readJson(`[{"a":"${big}"},{"a":1}]`);
    expect(error).toBeUndefined();
    expect(summary(records)).toEqual([
      [1, 1, 'error', 'the element is larger than 16 MB'],
      [2, 1, { a: 1 }],
    ]);
  });
});

describe('NDJSON reader', () => {
  it('one value per line; blank lines, spaces and CRLF are ignored, line numbers stay physical', async () => {
    for (const chunkSize of [1, 4, 1 << 16]) {
      const { records } = await readNdjson('\ufeff{"a":1}\r\n\r\n  \n {"a":2} \n["x"]\n\n', chunkSize);
      expect(summary(records)).toEqual([
        [1, 1, { a: 1 }],
        [2, 4, { a: 2 }],
        [3, 5, ['x']],
      ]);
    }
  });

  it('a BOM past the first line (files joined) is said in words, not as an invisible token; no sample of the line', async () => {
    const { records } = await readNdjson(
      '\ufeff{"a":1}\n\ufeff{"a":2}\nnope this is not json at all, a long line of text\n{"memberId":"j1","customProperties":{"n":NaN}}\n',
    );
    expect(summary(records)).toEqual([
      [1, 1, { a: 1 }],
      [2, 2, 'error', 'not valid JSON: the record starts with a byte-order mark (U+FEFF), the mark a file starts with'],
      [3, 3, 'error', "not valid JSON: Unexpected token 'o'"],
      [4, 4, 'error', "not valid JSON: Unexpected token 'N'"],
    ]);
  });

  it('a bad line is an error record holding its text, and the next lines are read', async () => {
    const { records } = await readAll({ path: 'fixtures/invalid/mixed.ndjson' });
    expect(records.map((r) => [r.record, r.line, r.error?.message ?? 'ok'])).toEqual([
      [1, 1, 'ok'],
      [2, 2, 'ok'],
      [3, 3, 'ok'],
      [4, 4, 'ok'],
      [5, 6, 'ok'],
      [6, 7, 'ok'],
      ...records.slice(6).map((r) => [r.record, r.line, r.error?.message ?? 'ok']),
    ]);
    const bad = await readNdjson('{"a":1}\n{"a":\n{"b":2}');
    expect(summary(bad.records)).toEqual([
      [1, 1, { a: 1 }],
      [2, 2, 'error', expect.stringMatching(/^not valid JSON: /)],
      [3, 3, { b: 2 }],
    ]);
    expect(bad.records[1]!.raw).toBe('{"a":');
  });

  it('invalid UTF-8 and over-long lines are error records', async () => {
    const text = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('"}\n'),
      Buffer.from(`{"a":"${'y'.repeat(17 * 1024 * 1024)}"}\n{"a":3}\n`),
    ]);
    const { records } = await readNdjson(text);
    expect(summary(records)).toEqual([
      [1, 1, 'error', 'not valid UTF-8 (byte 0xE2 on line 1)'],
      [2, 2, 'error', 'the line is larger than 16 MB'],
      [3, 3, { a: 3 }],
    ]);
  });

  it('an empty input is an InputError, as for every format', async () => {
    await expect(readNdjson('\n \n')).rejects.toMatchObject({ code: 'input-empty', message: 'stdin is empty' });
    await expect(readJson('')).rejects.toMatchObject({ code: 'input-empty' });
  });
});

describe('a key given twice in one object', () => {
  it('makes the record an error naming the key (its path) and its line, kept as written; the next ones are read', async () => {
    const text = [
      '[',
      '{"memberId": "a", "email": "a@example.com", "email": "b@example.com"},',
      '{"memberId": "b",',
      ' "address": {"city": "Oslo",',
      '   "city": "Bergen"}},',
      '{"memberId": "c", "note": "say \\":\\" twice", "address": {"city": "Oslo"}, "city": "Oslo"},',
      '{"memberId": "d", "tags": [{"k": 1}, {"k": 2, "k": 3}]},',
      '{"memberId": "e", "\\u0065mail": "x@example.com", "email": "y@example.com"}',
      ']',
    ].join('\n');
    for (const chunkSize of [3, 1 << 16]) {
      const { records, error } = await readJson(text, chunkSize);
      expect(error).toBeUndefined();
      expect(summary(records)).toEqual([
        [1, 2, 'error', 'the key "email" is given twice in one object (line 2)'],
        [2, 3, 'error', 'the key "address.city" is given twice in one object (line 5)'],
        [3, 6, { memberId: 'c', note: 'say ":" twice', address: { city: 'Oslo' }, city: 'Oslo' }],
        [4, 7, 'error', 'the key "tags[1].k" is given twice in one object (line 7)'],
        [5, 8, 'error', 'the key "email" is given twice in one object (line 8)'],
      ]);
      expect(records[1]!.raw).toBe('{"memberId": "b",\n "address": {"city": "Oslo",\n   "city": "Bergen"}}');
      expect(records[0]!.error!.hint).toMatch(/silently take the last/);
    }
    const ndjson = await readNdjson('{"memberId":"a"}\n\n{"memberId":"b","isActive":true,"isActive":false}\n');
    expect(summary(ndjson.records)).toEqual([
      [1, 1, { memberId: 'a' }],
      [2, 3, 'error', 'the key "isActive" is given twice in one object (line 3)'],
    ]);
    expect(ndjson.records[1]!.raw).toBe('{"memberId":"b","isActive":true,"isActive":false}');
  });
});

describe('firstDuplicateKey', () => {
  it('finds the first repeat of any object, whatever the keys and values hold (quotes, colons, escapes)', () => {
    const text = fc.constantFrom('a', 'b', 'a:', '"', '\\', '":', 'é', ' ');
    type Node = [string, string | Node][];
    const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
      node: fc.array(fc.tuple(text, fc.oneof({ depthSize: 'small' }, text, tie('node'))), { maxLength: 5 }),
    })).node;
    const write = (pairs: Node, spaced: boolean): string =>
      `{${pairs.map(([k, v]) => `${JSON.stringify(k)}${spaced ? ' : ' : ':'}${typeof v === 'string' ? JSON.stringify(v) : write(v, spaced)}`).join(',')}}`;
    const expected = (pairs: Node): string | undefined => {
      const seen = new Set<string>();
      for (const [k, v] of pairs) {
        if (seen.has(k)) return k;
        seen.add(k);
        const inner = typeof v === 'string' ? undefined : expected(v);
        if (inner !== undefined) return inner;
      }
      return undefined;
    };
    fc.assert(
      fc.property(node, fc.boolean(), (pairs, spaced) => {
        const json = write(pairs, spaced);
        expect(firstDuplicateKey(json, JSON.parse(json))?.key).toBe(expected(pairs));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a number a double cannot hold as written', () => {
  it('makes the record an error naming the key (its path), the number, what would be sent and the line', async () => {
    const text = [
      '[',
      '{"memberId": "a", "customProperties": {"cardNo": 12345678901234567890}},',
      '{"memberId": "b",',
      ' "tags": [1, 2, 9007199254740993]},',
      '{"memberId": "c", "note": "12345678901234567890 1e999", "n": 9007199254740992, "r": 0.1, "z": -0, "e": 1E2},',
      '{"memberId": "d", "tiny": 1e-400}',
      ']',
    ].join('\n');
    for (const chunkSize of [3, 1 << 16]) {
      const { records, error } = await readJson(text, chunkSize);
      expect(error).toBeUndefined();
      expect(summary(records)).toEqual([
        [
          1,
          2,
          'error',
          'the number 12345678901234567890 at "customProperties.cardNo" cannot be held exactly: it would be sent as 12345678901234567000 (line 2)',
        ],
        [
          2,
          3,
          'error',
          'the number 9007199254740993 at "tags[2]" cannot be held exactly: it would be sent as 9007199254740992 (line 4)',
        ],
        [3, 5, { memberId: 'c', note: '12345678901234567890 1e999', n: 9007199254740992, r: 0.1, z: -0, e: 100 }],
        [4, 6, 'error', 'the number 1e-400 at "tiny" cannot be held exactly: it would be sent as 0 (line 6)'],
      ]);
      expect(records[0]!.error!.hint).toMatch(/write it in quotes \("12345678901234567890"\)/);
    }
    const ndjson = await readNdjson('{"memberId":"n3","cardNo":9007199254740993}\n12345678901234567890\n');
    expect(summary(ndjson.records)).toEqual([
      [1, 1, 'error', expect.stringContaining('9007199254740993 at "cardNo"')],
      [2, 2, 'error', expect.stringContaining('the number 12345678901234567890 cannot be held exactly')],
    ]);
  });
});
