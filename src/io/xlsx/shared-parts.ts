/**
 * The two parts a sheet's cells point into: the shared strings table (held whole while the sheet is read: a cell
 * holds only an index into it; bounded by MAX_SHARED_STRINGS_BYTES) and, from the styles, which cell styles show
 * a date, a code of fixed width or a duration.
 */
import { MAX_SHARED_STRINGS_BYTES, MAX_SMALL_PART_BYTES, type ZipParts } from './zip-parts.js';
import { builtInFormat, formatOf, type NumberFormat } from './number-formats.js';
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

/** For each cell style (a cell's `s`), what its number format makes of a number (number-formats.ts). */
export async function readCellFormats(zip: ZipParts, file: string, part: string): Promise<NumberFormat[]> {
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
    return code === undefined ? builtInFormat(id) : formatOf(code);
  });
}
