/**
 * `"format"` read in one pass (issue 26 item 1) and read as written (issue 24 item 3): years 0000–0099, offsets no
 * clock shows, formats that name a part twice; and the one-pass reader agrees with the regular expression it
 * replaced on every well-formed format and cell.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import { compileDateFormat, DateRefusal, type DateParts } from '../../src/core/mapping/rules/date-format.js';
import { dateMatchSteps } from '../../src/core/mapping/rules/date-match.js';
import { compileDateFormat as compileRegexFormat } from './fixtures/regex-date-format.js';
import { issuesOf, usageMessage } from './mapping-helpers.js';

function dated(rule: object) {
  const mapping = parseMapping(
    { columns: { Id: 'memberId', D: { field: 'createdAt', ...rule } }, fields: { isActive: { value: true } } },
    'm.json',
  );
  const mapper = createRecordMapper('csv', ['Id', 'D'], { file: 'x.csv', mapping });
  return (cell: string) => {
    const c = mapper.toCandidate({ record: 1, line: 2, raw: ['m', cell] });
    return c.valid ? (c.item.createdAt as string) : issuesOf(c);
  };
}

describe('dates read as written (issue 24 item 3)', () => {
  it('years 0000–0099 are those years, not 1900–1999', () => {
    expect(dated({ format: 'dd.MM.yyyy' })('01.01.0050')).toBe('0050-01-01T00:00:00.000Z');
    expect(dated({ format: 'dd.MM.yyyy' })('29.02.0000')).toBe('0000-02-29T00:00:00.000Z');
    expect(dated({ format: 'dd.MM.yyyy HH:mm', timeZone: 'UTC' })('31.12.0099 23:59')).toBe('0099-12-31T23:59:00.000Z');
    // through a zone too (its offset is looked up in year 50, not 1950), and an ISO cell beside the format
    expect(dated({ format: 'dd.MM.yyyy', timeZone: 'UTC' })('0050-06-01')).toBe('0050-06-01T00:00:00.000Z');
    expect(dated({ timeZone: 'Etc/GMT-2' })('0050-06-01 10:00')).toBe('0050-06-01T08:00:00.000Z');
  });

  it('an offset no clock shows is refused, saying why; ±14:00 is the bound', () => {
    const read = dated({ format: "yyyy-MM-dd'T'HH:mmXXX" });
    expect(read('2024-01-05T10:00+99:99')).toEqual([
      'createdAt: "2024-01-05T10:00+99:99" is in the format "yyyy-MM-dd\'T\'HH:mmXXX", but its offset 99:99 is not a real one: offsets run from -14:00 to +14:00, with minutes 00–59 (column "D")',
    ]);
    expect(read('2024-01-05T10:00+02:75')).toHaveLength(1);
    expect(read('2024-01-05T10:00-14:30')).toHaveLength(1);
    expect(read('2024-01-05T10:00+14:00')).toBe('2024-01-04T20:00:00.000Z');
    expect(read('2024-01-05T10:00-12:00')).toBe('2024-01-05T22:00:00.000Z');
    // an ISO cell beside the format is bounded alike (the API would take +15:00 as written)
    expect(read('2024-01-05T10:00:00+15:00')).toEqual([
      'createdAt: "2024-01-05T10:00:00+15:00": its offset 15:00 is not a real one: offsets run from -14:00 to +14:00, with minutes 00–59 (column "D")',
    ]);
  });

  it('a format that names a part twice is refused when the mapping is read, naming the field and the tokens', () => {
    const at = (format: string) =>
      usageMessage(() => parseMapping({ columns: { D: { field: 'createdAt', format } } }, 'm.json'));
    expect(at('yyyy-yyyy-MM-dd')).toContain(
      'columns["D"]: format "yyyy-yyyy-MM-dd" gives the year of createdAt twice ("yyyy" and "yyyy"): a date has one; keep one',
    );
    expect(at('dd.MM.yy yyyy')).toContain('gives the year of createdAt twice ("yy" and "yyyy")');
    expect(at('d MMM yyyy (MM)')).toContain('gives the month of createdAt twice ("MMM" and "MM")');
    expect(at("yyyy-MM-dd'T'HH:mmXXX xx")).toContain('gives the offset of createdAt twice ("XXX" and "xx")');
  });

  it('a 1–2 digit token right before more digits is refused (two readings), not read one way', () => {
    const at = (format: string) =>
      usageMessage(() => parseMapping({ columns: { D: { field: 'createdAt', format } } }, 'm.json'));
    expect(at('Mdyyyy')).toContain('can be read two ways');
    expect(at("d'1'MM.yyyy")).toContain('can be read two ways');
    expect(parseMapping({ columns: { D: { field: 'birthdate', format: 'yyyyMMdd' } } }, 'm.json')).toBeDefined();
  });
});

describe('one pass over the cell (issue 26 item 1)', () => {
  const stepsOf = (format: string, cell: string) => {
    const compiled = compileDateFormat(format, undefined, 'createdAt');
    const before = dateMatchSteps();
    expect(compiled.parse(cell)).toBeUndefined();
    return dateMatchSteps() - before;
  };

  it('a cell of 100k spaces against a format with 12 spaces is refused in steps that grow with the cell, not its square', () => {
    const format = `dd.MM.yyyy${' '.repeat(12)}HH:mm`;
    const small = stepsOf(format, `01.01.2024${' '.repeat(100_000)}`);
    const large = stepsOf(format, `01.01.2024${' '.repeat(200_000)}`);
    expect(small).toBeLessThanOrEqual(100_000 + 100);
    expect(large).toBeLessThanOrEqual(2 * small + 100);
    // the issue's typo (two spaces) on a cell of spaces alone
    expect(stepsOf('dd.MM.yyyy  HH:mm', ' '.repeat(100_000))).toBeLessThan(10);
  });

  it('for any format and any cell, at most one step per character of the cell, plus a few per format letter', () => {
    const hostile = fc.stringMatching(/^[ 0-9.:+a-zA-Z\t-]{0,2000}$/);
    const spaced = fc
      .tuple(fc.nat(3000), fc.constantFrom('', '01.01.2024', '1', 'jan.', 'a.m', '+01'))
      .map(([n, head]) => `${head}${' '.repeat(n)}`);
    fc.assert(
      fc.property(formatArb, fc.oneof(hostile, spaced, fc.string()), (format, cell) => {
        let compiled;
        try {
          compiled = compileDateFormat(format, 1969, 'createdAt');
        } catch {
          return;
        }
        const before = dateMatchSteps();
        compiled.parse(cell);
        expect(dateMatchSteps() - before).toBeLessThanOrEqual(cell.length + 20 * format.length);
      }),
      { numRuns: 300 },
    );
  });

  it('through the mapping, such a cell is refused at once as too long, quoted short', () => {
    const read = dated({ format: 'dd.MM.yyyy  HH:mm', timeZone: 'UTC' });
    const before = dateMatchSteps();
    expect(read(`01.01.2024${' '.repeat(100_000)}10:00`)).toEqual([
      'createdAt: too long (100,015 characters): a date is at most 100, got "01.01.2024                              …" (100,015 characters) (column "D")',
    ]);
    expect(dateMatchSteps()).toBe(before);
  });
});

// ---- the one-pass reader agrees with the regular expression it replaced ----

const SLOTS: string[][] = [
  ['yyyy', 'yy'],
  ['MMMM', 'MMM', 'MM', 'M'],
  ['dd', 'd'],
  ['HH', 'H', 'hh'],
  ['mm', 'm'],
  ['ss', 's'],
  ['SSS', 'SS', 'S'],
  ['XXX', 'XX', 'X', 'xxx', 'xx', 'x'],
];
const SEPARATORS = ['-', '/', '.', ':', ' ', '  ', ', ', "'T'", "' at '", '', '.', "''"];

const formatArb = fc
  .tuple(
    fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7], { minLength: 3 }),
    fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
    fc.array(fc.constantFrom(...SEPARATORS), { minLength: 10, maxLength: 10 }),
  )
  .map(([slots, picks, separators]) => {
    const chosen = [0, 1, 2, ...slots.filter((s) => s > 2)];
    const order = [...new Set([...slots, ...chosen])];
    const tokens = order.map((slot, i) => SLOTS[slot]![picks[i]! % SLOTS[slot]!.length]!);
    if (tokens.includes('hh')) tokens.push('a');
    return tokens.flatMap((token, i) => [token, i < tokens.length - 1 ? separators[i]! : '']).join('');
  });

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/** The values a cell is written from: `offset` as ±hhmm, `style` picks among spellings (case, spaces, am/pm). */
type CellValues = [
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offset: number,
  style: number,
];

/** A cell written in the format for random values (some out of range), with its case and spaces varied. */
function render(format: string, values: CellValues): string {
  const [year, month, day, hour, minute, second, ms, offset, style] = values;
  const byToken: Record<string, () => string> = {
    yyyy: () => pad(year % 10000, 4),
    yy: () => pad(year % 100, 2),
    MMMM: () => MONTHS[(month + 11) % 12]!,
    MMM: () => MONTHS[(month + 11) % 12]!.slice(0, 3) + (style % 2 ? '.' : ''),
    MM: () => pad(month, 2),
    M: () => String(month),
    dd: () => pad(day, 2),
    d: () => String(day),
    HH: () => pad(hour, 2),
    H: () => String(hour),
    hh: () => pad((hour % 12) + 1, 2),
    mm: () => pad(minute, 2),
    m: () => String(minute),
    ss: () => pad(second, 2),
    s: () => String(second),
    SSS: () => pad(ms % 1000, 3),
    SS: () => pad(ms % 100, 2),
    S: () => String(ms % 10),
    a: () => ['am', 'PM', 'a.m.', 'p.m', 'pm.'][style % 5]!,
    XXX: () =>
      style % 3 === 0
        ? 'Z'
        : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 100), 2)}:${pad(Math.abs(offset) % 100, 2)}`,
    XX: () => `${offset < 0 ? '-' : '+'}${pad(Math.abs(offset), 4)}`,
    X: () => `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 100), 2)}`,
    xxx: () => `+${pad(Math.floor(Math.abs(offset) / 100), 2)}:${pad(Math.abs(offset) % 100, 2)}`,
    xx: () => `-${pad(Math.abs(offset), 4)}`,
    x: () => `+${pad(Math.floor(Math.abs(offset) / 100), 2)}`,
  };
  return format.replace(/'([^']*)'|([A-Za-z])\2*|\s/g, (found, quoted: string | undefined) => {
    if (quoted !== undefined) return quoted === '' ? "'" : quoted;
    if (/\s/.test(found)) return ' '.repeat(1 + (style % 3));
    return byToken[found]!();
  });
}

const valuesArb = fc.tuple(
  fc.integer({ min: 0, max: 9999 }),
  fc.integer({ min: 0, max: 13 }),
  fc.integer({ min: 0, max: 32 }),
  fc.integer({ min: 0, max: 24 }),
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 0, max: 999 }),
  fc.integer({ min: -1600, max: 1600 }),
  fc.nat(30),
);

/** A cell near the format: as written, with one character changed, dropped or doubled, in another case. */
const cellArb = (format: string) =>
  fc
    .tuple(
      valuesArb,
      fc.nat(),
      fc.constantFrom('keep', 'change', 'drop', 'double', 'upper'),
      fc.string({ minLength: 1, maxLength: 1 }),
    )
    .map(([values, at, how, char]) => {
      const cell = render(format, values);
      const i = at % Math.max(cell.length, 1);
      if (how === 'change') return cell.slice(0, i) + char + cell.slice(i + 1);
      if (how === 'drop') return cell.slice(0, i) + cell.slice(i + 1);
      if (how === 'double') return cell.slice(0, i) + cell[i] + cell.slice(i);
      return how === 'upper' ? cell.toUpperCase() : cell;
    });

const offsetOutOfRange = (p: DateParts) => p.offset !== undefined && Math.abs(p.offset) > 14 * 60;

describe('the one-pass reader and the regular expression it replaced', () => {
  it('read every well-formed cell alike (but an offset past ±14:00 or with minutes past 59, now refused)', () => {
    let read = 0;
    fc.assert(
      fc.property(
        formatArb.chain((format) => fc.tuple(fc.constant(format), fc.array(cellArb(format), { maxLength: 8 }))),
        ([format, cells]) => {
          let compiled;
          try {
            compiled = compileDateFormat(format, 1969, 'createdAt');
          } catch {
            return; // a format the new reader refuses (two readings, a part twice) is no well-formed format
          }
          const old = compileRegexFormat(format, 1969);
          for (const cell of cells) {
            const now = compiled.parse(cell);
            const before = old.parse(cell);
            if (now instanceof DateRefusal) {
              const minutesPast59 = /[+-]\d{2}:?([6-9]\d)$/.test(cell) || /[+-]\d{2}:?([6-9]\d)\D/.test(cell);
              expect(before && (offsetOutOfRange(before) || minutesPast59), `${format} / ${cell}`).toBeTruthy();
            } else expect(now, `${format} / ${cell}`).toEqual(before);
            if (now && !(now instanceof DateRefusal)) read++;
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(read).toBeGreaterThan(100); // the cells are near enough to the formats for many to be dates
  });
});
