/**
 * What a workbook says about itself before any sheet is read: its sheets in tab order (name, part, hidden or not),
 * its date system, and where its shared strings and styles are. Parts are found through the relationships, as
 * Excel finds them (a sheet's part is rarely sheetN.xml for the Nth tab after tabs were moved).
 */
import { MAX_SMALL_PART_BYTES, unreadableWorkbook, type ZipParts } from './zip-parts.js';
import { parseXml, prefixedAttribute } from './xml-stream.js';

export interface SheetInfo {
  name: string;
  /** The sheet's zip part; undefined when its relationship is missing (a damaged file). */
  part?: string;
  /** false for a chart sheet or a dialog sheet: no cells to read. */
  worksheet: boolean;
  hidden: boolean;
}

export interface WorkbookInfo {
  sheets: SheetInfo[];
  /** `<workbookPr date1904="1">`: serial 0 is 1 January 1904 (old Mac Excel), not 0 January 1900. */
  date1904: boolean;
  sharedStrings?: string;
  styles?: string;
}

interface Relationship {
  type: string;
  target: string;
}

export async function readWorkbookInfo(zip: ZipParts, file: string): Promise<WorkbookInfo> {
  const root = await relationships(zip, file, '');
  const office = [...root.values()].find((rel) => rel.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  if (!zip.entry(office)) throw unreadableWorkbook(file, `its zip has no ${office} part`);
  const rels = await relationships(zip, file, office);
  const xml = await zip.bytes(office, MAX_SMALL_PART_BYTES);
  const info: WorkbookInfo = { sheets: [], date1904: false };
  let inSheets = false;
  parseXml(file, office, xml, {
    open(name, attributes) {
      if (name === 'workbookPr') info.date1904 = isTrue(attributes.date1904);
      else if (name === 'sheets') inSheets = true;
      else if (name === 'sheet' && inSheets) {
        const rel = rels.get(prefixedAttribute(attributes, 'id') ?? '');
        info.sheets.push({
          name: attributes.name ?? '',
          part: rel?.target,
          worksheet: rel === undefined || rel.type.endsWith('/worksheet'),
          hidden: attributes.state === 'hidden' || attributes.state === 'veryHidden',
        });
      }
    },
    close(name) {
      if (name === 'sheets') inSheets = false;
    },
    text() {},
  });
  for (const rel of rels.values()) {
    if (rel.type.endsWith('/sharedStrings')) info.sharedStrings = rel.target;
    if (rel.type.endsWith('/styles')) info.styles = rel.target;
  }
  return info;
}

/** A part's relationships (`dir/_rels/name.rels`, or `_rels/.rels` for the package), by id; none when absent. */
async function relationships(zip: ZipParts, file: string, part: string): Promise<Map<string, Relationship>> {
  const slash = part.lastIndexOf('/');
  const dir = part.slice(0, slash + 1);
  const relsPart = `${dir}_rels/${part.slice(slash + 1)}.rels`;
  const found = new Map<string, Relationship>();
  if (!zip.entry(relsPart)) return found;
  parseXml(file, relsPart, await zip.bytes(relsPart, MAX_SMALL_PART_BYTES), {
    open(name, attributes) {
      if (name !== 'Relationship' || attributes.TargetMode === 'External') return;
      const target = resolveTarget(dir, attributes.Target ?? '');
      if (attributes.Id !== undefined && target !== undefined) {
        found.set(attributes.Id, { type: attributes.Type ?? '', target });
      }
    },
    close() {},
    text() {},
  });
  return found;
}

/** A relationship's target as a zip part name; undefined for one that leaves the package ("../../etc/passwd"). */
export function resolveTarget(dir: string, target: string): string | undefined {
  const path = target.startsWith('/') ? target.slice(1) : dir + target;
  const parts: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.length > 0 ? parts.join('/') : undefined;
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}
