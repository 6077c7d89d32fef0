/**
 * A value lands exactly as the file holds it, or the record is refused (or the optional field left out with
 * "onInvalid": "omit"): never rounded, cut or guessed (docs/decisions.md, "Mapping rules: exact or refused").
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadMappingFile } from '../../src/core/mapping/mapping-file.js';
import { UsageError } from '../../src/errors.js';
import { parseJsonRecord } from '../../src/io/json-element.js';
import { firstLossyNumber, survivesAsDouble } from '../../src/schemas/exact-number.js';
import { duplicateKeys } from '../../src/io/json-duplicate-keys.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { cellReader as reader, usageMessage } from './mapping-helpers.js';

/** What a cell of column X becomes under `rule`: the item, or the record's issues. */
describe('numbers a double cannot hold as written', () => {
  const read = reader({ field: 'customProperties.n', type: 'number' });

  it('a CSV cell of type number whose digits would be rounded is refused, saying what would be sent', () => {
    expect(read('12345678901234567890')).toEqual([
      'customProperties.n: "12345678901234567890" cannot be held exactly as a number (it would be sent as 12345678901234567000): give the column "type": "string" to send it as text (column "X")',
    ]);
    expect(read('9007199254740993')).toHaveLength(1);
    expect(read('0.1000000000000000055511151231257827')).toHaveLength(1);
    expect(read('1e-400')).toHaveLength(1);
  });

  it('numbers a double holds exactly are sent as their value, however written', () => {
    for (const [cell, n] of [
      ['9007199254740992', 9007199254740992],
      ['0.1', 0.1],
      ['1.50', 1.5],
      ['1E2', 100],
      ['-0', -0],
      ['42.5', 42.5],
    ] as const)
      expect(read(cell)).toMatchObject({ customProperties: { n } });
  });

  it('every double, written as JSON writes it (or with its exponent spelled out), survives', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(survivesAsDouble(JSON.stringify(x))).toBe(true);
        expect(survivesAsDouble(x.toExponential())).toBe(true);
      }),
    );
  });

  it('an integer beyond 2^53 survives only when the digits sent are the digits written', () => {
    // 81064243538952176 is a double, but is sent as 81064243538952180: a reader that keeps integers exactly
    // (a long, a numeric column) would store another number, so it is refused too
    expect(survivesAsDouble('81064243538952176')).toBe(false);
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n, max: 10n ** 20n }), (n) => {
        expect(survivesAsDouble(n.toString())).toBe(BigInt(JSON.stringify(Number(n))) === n);
      }),
    );
  });
});

describe("firstLossyNumber (the check of a JSON record's text)", () => {
  it('finds a number that does not survive wherever it is, and only then; strings holding digits are not numbers', () => {
    const literal = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.constantFrom('1e-400', '0.1000000000000000055511151231257827', '1E2', '-0', '9007199254740993'),
    );
    const space = fc.constantFrom('', ' ', '\n  ');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), literal, space), { maxLength: 6 }), (entries) => {
        const items = entries.map(([key, n, ws], i) =>
          i % 2 === 0
            ? `${JSON.stringify(`${key}${i}`)}:${ws}${n}`
            : `"k${i}":${ws}[${JSON.stringify(`${n},${n}`)},${ws}${n}]`,
        );
        const text = `{${items.join(',')}}`;
        JSON.parse(text);
        const lossy = entries.some(([, n]) => !survivesAsDouble(n));
        expect(firstLossyNumber(text) !== undefined).toBe(lossy);
      }),
    );
  });

  it('names where, as the duplicate-key scan does (one walk of the text, schemas/json-text.ts)', () => {
    const text = '{"a": {"tags": [1, "x", {"n": 9007199254740993, "k": 1,\n "k": 2}]}, "b": [[0], [1, 2e400]]}';
    expect(firstLossyNumber(text)).toMatchObject({ path: 'a.tags[2].n', line: 0 });
    expect(firstLossyNumber(text.replace('9007199254740993', '1'))).toMatchObject({ path: 'b[1][1]', line: 1 });
    expect(duplicateKeys(text, JSON.parse(text.replace('2e400', '2')))).toEqual([
      { path: 'a.tags[2].k', key: 'k', depth: 3, line: 1 },
    ]);
  });
});

describe('convert e164 refuses a cell it would cut', () => {
  const read = reader({ field: 'phone', convert: 'e164', defaultRegion: 'NO' });
  const omitting = reader({ field: 'phone', convert: 'e164', defaultRegion: 'NO', onInvalid: 'omit' });

  it('an extension, however written, is named as what would be lost', () => {
    for (const [cell, ext] of [
      ['+47 912 34 567 ext. 12', '12'],
      ['+1 212 555 0123 x45', '45'],
      ['+1 212-555-0123;ext=45', '45'],
    ] as const)
      expect(read(cell)).toEqual([
        `phone: "${cell}": its extension ${ext} would be lost: E.164 has no room for one (write the extension elsewhere, or "onInvalid": "omit") (column "X")`,
      ]);
  });

  it('text beside the number is named; with onInvalid omit the record is sent without the phone', () => {
    expect(read('Mobile: +47 912 34 567')).toEqual([
      'phone: "Mobile: +47 912 34 567": it holds text beside the number ("Mobile:"), which would be lost: E.164 is the number alone (column "X")',
    ]);
    expect(read('+47 912 34 567 (Mom)')).toEqual([expect.stringContaining('("Mom")')]);
    expect(omitting('+47 912 34 567 (Mom)')).not.toHaveProperty('phone');
  });

  it('a number written with spaces, dashes, dots, brackets or a slash alone is read', () => {
    for (const cell of [
      '+47 912 34 567',
      '912-34-567',
      '+47 912.34.567',
      '(+47) 912 34 567',
      '912 34/567',
      '912–34–567',
    ])
      expect(read(cell)).toMatchObject({ phone: '+4791234567' });
  });
});

describe('convert countryCode does not guess', () => {
  const read = reader({ field: 'address.countryCode', convert: 'countryCode' });
  const code = (cell: string) => (read(cell) as { address?: { countryCode?: string } }).address?.countryCode;

  it('the words exports write for "no value" are no country; NA is refused in any case, NO only read upper-case', () => {
    for (const cell of ['na', 'NA', 'Na', 'n/a', 'N/A', 'none', 'no', 'No', 'unknown', 'Unknown', '-', '?'])
      expect(read(cell), cell).toEqual([expect.stringMatching(/not available|means no value, not a country/)]);
    expect(read('NA')).toEqual([
      'address.countryCode: "NA" is Namibia\'s code and also "not available": write "NAM" or "Namibia" for the country (column "X")',
    ]);
    expect(read('n/a')).toEqual([
      'address.countryCode: "n/a" means no value, not a country: leave the cell empty, or list it in "treatAsEmpty" (column "X")',
    ]);
    const empty = reader({ field: 'address.countryCode', convert: 'countryCode', treatAsEmpty: ['n/a'] });
    expect(empty('n/a')).not.toHaveProperty('address');
    expect(code('NO')).toBe('NO');
    expect(code('NAM')).toBe('NA');
    expect(code('Namibia')).toBe('NA');
  });

  it('a code is read in upper or lower case, not mixed (a word more likely than a code)', () => {
    expect([code('SE'), code('se'), code('SWE'), code('swe')]).toEqual(['SE', 'SE', 'SE', 'SE']);
    expect(read('Se')).toEqual([expect.stringContaining('unknown country "Se"')]);
    expect(read('Can')).toEqual([expect.stringContaining('unknown country "Can"')]);
  });

  it('a name of more than one place is refused, naming them', () => {
    expect(read('Congo')).toEqual([
      'address.countryCode: "Congo" names more than one place (CG (Republic of the Congo) or CD (Democratic Republic of the Congo)): write the code (column "X")',
    ]);
    for (const [cell, named] of [
      ['Korea', 'KR (South Korea) or KP (North Korea)'],
      ['virgin islands', 'VG (British Virgin Islands) or VI (U.S. Virgin Islands)'],
      ['Georgia', 'GE (the country) or the US state'],
    ] as const)
      expect(read(cell)).toEqual([expect.stringContaining(`names more than one place (${named})`)]);
  });

  it('names are read in any case and as editors write them, in English and the other languages', () => {
    for (const [cell, expected] of [
      ['south korea', 'KR'],
      ['Côte d’Ivoire', 'CI'],
      ['Deutschland', 'DE'],
      ['  United   Kingdom ', 'GB'],
      ['Guinea', 'GN'],
      ['Republic of the Congo', 'CG'],
    ] as const)
      expect(code(cell), cell).toBe(expected);
  });

  it('an unknown name is one table lookup: the library is not walked name by name', () => {
    const lib = createRequire(import.meta.url)('i18n-iso-countries') as { getAlpha2Code: unknown };
    const walk = vi.spyOn(lib as { getAlpha2Code: (n: string, l: string) => string | undefined }, 'getAlpha2Code');
    for (let i = 0; i < 50; i++) expect(read(`Nowhere ${i}`)).toEqual([expect.stringContaining('unknown country')]);
    expect(walk).not.toHaveBeenCalled();
    walk.mockRestore();
  });
});

describe('a date format that would make up part of the time is refused when the mapping loads', () => {
  const load = (format: string) => () =>
    parseMapping({ columns: { D: { field: 'createdAt', format, timeZone: 'UTC' } } }, 'm.json');

  it('minutes without an hour, seconds without minutes, a fraction without seconds, AM/PM without an hour', () => {
    for (const [format, name] of [
      ['dd.MM.yyyy mm', 'minutes (mm) without an hour (HH)'],
      ['dd.MM.yyyy m', 'minutes (mm) without an hour (HH)'],
      ['dd.MM.yyyy ss', 'seconds (ss) without minutes (mm)'],
      ['dd.MM.yyyy HH ss', 'seconds (ss) without minutes (mm)'],
      ['dd.MM.yyyy HH:mm SSS', 'a fraction (SSS) without seconds (ss)'],
      ['dd.MM.yyyy a', 'an AM/PM marker (a) without an hour (hh)'],
    ] as const)
      expect(usageMessage(load(format)), format).toContain(
        `columns["D"]: format "${format}" of createdAt has ${name}: the time would be made up`,
      );
  });

  it('a whole time, an hour alone, or none at all is read as before', () => {
    for (const format of [
      'dd.MM.yyyy',
      'dd.MM.yyyy HH',
      'dd.MM.yyyy HH:mm:ss.SSS',
      'dd.MM.yyyy h a',
      'yyyy-MM-dd hh:mm a',
    ])
      expect(load(format), format).not.toThrow();
  });
});

describe('the mapping file is read as written', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memberctl-exact-mapping-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = async (text: string) => {
    const file = join(dir, 'm.json');
    writeFileSync(file, text);
    return loadMappingFile(file).catch((error: UsageError) => error);
  };

  it('a key given twice is refused, naming its path and line, every one in one run', async () => {
    const error = await load('{"columns": {"a": "memberId"},\n "columns": {"b": "memberId"},\n "fields": {}}');
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      `mapping file ${join(dir, 'm.json')}: "columns" is given twice in one object (line 2): only the last would be read`,
    );
    const two = (await load(
      '{"columns": {\n  "N": {"field": "firstName", "field": "lastName"},\n  "S": {"field": "isActive", "values": {"y": true, "y": false}}}}',
    )) as UsageError;
    expect(two.problems?.map((p) => p.message)).toEqual([
      expect.stringContaining('"columns.N.field" is given twice in one object (line 2)'),
      expect.stringContaining('"columns.S.values.y" is given twice in one object (line 3)'),
    ]);
  });

  it('a number a double cannot hold is refused, naming its path and line, not rounded', async () => {
    const error = (await load(
      '{"columns": {"Id": "memberId"},\n "fields": {"customProperties.card": {"value": 9007199254740993}}}',
    )) as UsageError;
    expect(error.message).toBe(
      `mapping file ${join(dir, 'm.json')}: the number 9007199254740993 at "fields.customProperties.card.value" cannot be held exactly: it would be sent as 9007199254740992 (line 2)`,
    );
  });

  it('a UTF-8 byte order mark (Notepad) is no part of the JSON', async () => {
    const mapping = await load('\uFEFF{"columns": {"Id": "memberId"}}');
    expect(mapping).not.toBeInstanceOf(Error);
    expect([...(mapping as { columns: Map<string, unknown> }).columns.keys()]).toEqual(['Id']);
  });

  it('curly quotes are named, with where the first one is', async () => {
    const error = (await load('{\n  “columns”: {“Id”: “memberId”}}')) as UsageError;
    expect(error.message).toBe(
      `mapping file ${join(dir, 'm.json')} is not valid JSON: it has curly quotes (“ ”, first at line 2, column 3) where JSON needs straight ones (")`,
    );
    expect(error.hint).toMatch(/retype them as "/);
  });
});

describe('a JSON record refused as read still names its member', () => {
  const mapper = createRecordMapper('ndjson', undefined, { file: 'x.ndjson' });
  const candidate = (text: string) => mapper.toCandidate(parseJsonRecord(1, 1, Buffer.from(text)));

  it('a key given twice, or a number a double cannot hold: the memberId is shown', () => {
    expect(candidate('{"memberId": "j1", "firstName": "A", "firstName": "B"}')).toMatchObject({
      valid: false,
      memberId: 'j1',
    });
    expect(candidate('{"memberId": "j2", "customProperties": {"card": 9007199254740993}}')).toMatchObject({
      valid: false,
      memberId: 'j2',
    });
  });

  it('not when the memberId is the key given twice (which one is meant cannot be told)', () => {
    expect(candidate('{"memberId": "a", "memberId": "b"}').memberId).toBeUndefined();
  });
});
