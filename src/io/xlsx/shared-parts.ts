/**
 * The two parts a sheet's cells point into: the shared strings table (held whole while the sheet is read: a cell
 * holds only an index into it; bounded by MAX_SHARED_STRINGS_BYTES) and, from the styles, which cell styles show
 * a date (a date is a number that its format shows as a date).
 */
import { MAX_SHARED_STRINGS_BYTES, MAX_SMALL_PART_BYTES, type ZipParts } from './zip-parts.js';
import { StringTable } from './string-table.js';
import { parseXml, xmlFeed } from './xml-stream.js';

/** The shared strings in order: each `<si>`'s text runs joined, its phonetic guide (`<rPh>`, furigana) left out. */
export async function readSharedStrings(zip: ZipParts, file: string, part: string): Promise<StringTable> {
  const strings = new StringTable();
  let text: string | undefined;
  let inText = false;
  let phonetic = 0;
  const feed = xmlFeed(file, part, {
    open(name) {
      if (name === 'si') text = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0 && text !== undefined) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && text !== undefined) {
        strings.push(decodeEscapes(text));
        text = undefined;
      }
    },
    text(chars) {
      if (inText) text += chars;
    },
  });
  for await (const chunk of zip.chunks(part, MAX_SHARED_STRINGS_BYTES)) feed.write(chunk);
  feed.end();
  return strings;
}

/**
 * OOXML writes characters XML cannot hold as `_xHHHH_` (a carriage return is `_x000D_`), and a literal `_x` that
 * would read so as `_x005F_x…`: Excel shows the character.
 */
export function decodeEscapes(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * Excel's built-in formats that show dates or times (ECMA-376 §18.8.30): 14–22, the East Asian dates 27–36 and
 * 50–58, the times 45–47, and the Thai dates and times 71–81.
 */
const BUILT_IN_DATES = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81,
]);

/** For each cell style (a cell's `s`), whether its number format shows a date or time. */
export async function readDateStyles(zip: ZipParts, file: string, part: string): Promise<boolean[]> {
  if (!zip.entry(part)) return [];
  const formats = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  parseXml(file, part, await zip.bytes(part, MAX_SMALL_PART_BYTES), {
    open(name, attributes) {
      if (name === 'numFmt' && attributes.numFmtId !== undefined) {
        formats.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
      } else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) styleFormats.push(Number(attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
    text() {},
  });
  return styleFormats.map((id) => {
    const code = formats.get(id);
    return code === undefined ? BUILT_IN_DATES.has(id) : isDateFormat(code);
  });
}

/**
 * A format code shows a date when a date or time token (y m d h s, b for Buddhist years) remains once quoted text,
 * escaped characters, `[…]` (colours, locales, conditions) and padding/fill characters are taken out: exceljs' rule,
 * with escapes (`0.0 \k\m`) read as the text they are.
 */
export function isDateFormat(code: string): boolean {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[[^\]]*]/g, '');
  return /[ymdhsb]/i.test(bare.replace(/General/gi, ''));
}
