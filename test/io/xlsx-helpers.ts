/**
 * Workbooks built by hand for the .xlsx reader's tests: a small zip writer (deflate or store, any part name, sizes
 * that lie when asked) and a workbook of given sheet XML, so each test holds exactly the cells a hostile or unusual
 * exporter writes (exceljs writes only what exceljs writes).
 */
import { deflateRawSync } from 'node:zlib';

export interface ZipPart {
  name: string;
  data: string | Buffer;
  /** Stored, not deflated. */
  store?: boolean;
  /** The uncompressed size the zip declares, when it should lie. */
  declaredSize?: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const data = Buffer.from(part.data);
    const body = part.store ? data : deflateRawSync(data);
    const name = Buffer.from(part.name);
    const size = part.declaredSize ?? data.length;
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed
      header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      header.writeUInt16LE(part.store ? 0 : 8, at + 4);
      header.writeUInt32LE(0, at + 6); // time, date
      header.writeUInt32LE(crc32(data), at + 10);
      header.writeUInt32LE(body.length, at + 14);
      header.writeUInt32LE(size, at + 18);
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    locals.push(local, name, body);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // version made by
    fields(entry, 6);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

export interface SheetSpec {
  name: string;
  /** The `<sheetData>` content, or a whole part when it starts with `<?xml` or `<`+non-row. */
  rows: string;
  state?: 'hidden' | 'veryHidden';
  /** The part's name under xl/ (default worksheets/sheetN.xml in the order given). */
  part?: string;
}

export interface BookSpec {
  sheets: SheetSpec[];
  /** The shared strings' `<si>` contents, or undefined for a workbook without the part. */
  strings?: string[];
  /** cellXfs entries as numFmtIds, and custom formats by id. */
  styles?: { cellFormats: number[]; formats?: Record<number, string> };
  date1904?: boolean;
  /** Extra parts, or parts to replace by name. */
  extra?: ZipPart[];
  /** Part names to leave out. */
  omit?: string[];
}

export function sheetXml(rows: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><dimension ref="A1"/><sheetData>${rows}</sheetData></worksheet>`;
}

export function workbookOf(spec: BookSpec): Buffer {
  const sheetParts = spec.sheets.map((s, i) => s.part ?? `worksheets/sheet${i + 1}.xml`);
  const rels = sheetParts.map((part, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="${part}"/>`);
  if (spec.strings) rels.push(`<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
  if (spec.styles) rels.push(`<Relationship Id="rIdT" Type="${REL}/styles" Target="styles.xml"/>`);
  const parts: ZipPart[] = [
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${REL}">${spec.date1904 ? '<workbookPr date1904="1"/>' : '<workbookPr/>'}<sheets>${spec.sheets
        .map(
          (s, i) =>
            `<sheet name="${s.name}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`,
        )
        .join('')}</sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="${PKG_REL}">${rels.join('')}</Relationships>`,
    },
    ...spec.sheets.map((s, i) => ({
      name: `xl/${sheetParts[i]}`,
      data: s.rows.startsWith('<?xml') ? s.rows : sheetXml(s.rows),
    })),
  ];
  if (spec.strings) {
    parts.push({
      name: 'xl/sharedStrings.xml',
      data: `<?xml version="1.0"?><sst xmlns="${MAIN}" count="${spec.strings.length}" uniqueCount="${spec.strings.length}">${spec.strings.map((si) => `<si>${si}</si>`).join('')}</sst>`,
    });
  }
  if (spec.styles) {
    const formats = Object.entries(spec.styles.formats ?? {});
    parts.push({
      name: 'xl/styles.xml',
      data: `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"><numFmts count="${formats.length}">${formats
        .map(([id, code]) => `<numFmt numFmtId="${id}" formatCode="${code.replace(/"/g, '&quot;')}"/>`)
        .join(
          '',
        )}</numFmts><cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs count="${spec.styles.cellFormats.length}">${spec.styles.cellFormats
        .map((id) => `<xf numFmtId="${id}" applyNumberFormat="1"/>`)
        .join('')}</cellXfs></styleSheet>`,
    });
  }
  const replaced = new Set((spec.extra ?? []).map((p) => p.name));
  const omitted = new Set(spec.omit ?? []);
  return zipOf([...parts.filter((p) => !replaced.has(p.name) && !omitted.has(p.name)), ...(spec.extra ?? [])]);
}
