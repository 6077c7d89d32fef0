/**
 * An .xlsx workbook's first visible sheet (or the one --sheet names), streamed: the zip's parts are read in place
 * (xlsx/zip-parts.ts), the sheet's XML through saxes row by row, so memory stays flat however long the sheet; only
 * the shared strings table is held whole. The first non-empty row is the header; each later row is a record whose
 * `line` is its spreadsheet row number. Cells become the text a CSV export of the sheet would hold
 * (xlsx/cell-values.ts), so the mapping reads a workbook exactly as it reads a CSV file.
 */
import { InputError } from '../errors.js';
import { readCellFormats, readSharedStrings } from './xlsx/shared-parts.js';
import { type SheetRow, sheetRows } from './xlsx/sheet-rows.js';
import { StringTable } from './xlsx/string-table.js';
import { readWorkbookInfo, type SheetInfo } from './xlsx/workbook-parts.js';
import { unreadableWorkbook, type ZipParts } from './xlsx/zip-parts.js';
import type { SourceRecord } from './source.js';

export interface WorkbookRecords {
  headers: string[];
  /** The header's row number (the first non-empty row). */
  headerLine: number;
  sheet: string;
  records: AsyncGenerator<SourceRecord[]>;
  /** Progress through the sheet's part: its compressed size, and how much of it was read. */
  totalBytes: number;
  bytesRead(): number;
}

export async function openXlsx(zip: ZipParts, file: string, sheetName: string | undefined): Promise<WorkbookRecords> {
  const book = await readWorkbookInfo(zip, file);
  const sheet = chooseSheet(book.sheets, sheetName, file);
  if (sheet.part === undefined || !zip.entry(sheet.part)) {
    throw unreadableWorkbook(file, `the part of sheet "${sheet.name}" is missing`);
  }
  const part = sheet.part;
  const strings =
    book.sharedStrings && zip.entry(book.sharedStrings)
      ? await readSharedStrings(zip, file, book.sharedStrings)
      : new StringTable();
  const formats = book.styles ? await readCellFormats(zip, file, book.styles) : [];
  const entry = zip.entry(part)!;
  let inflated = 0;
  const context = { file, sheet: sheet.name, part, strings, formats, date1904: book.date1904 };
  const rows = flatten(sheetRows(zip, context, (bytes) => (inflated += bytes)));

  let headerRow: SheetRow | undefined;
  try {
    for (let step = await rows.next(); !step.done; step = await rows.next()) {
      if (!isBlank(step.value)) {
        headerRow = step.value;
        break;
      }
    }
  } catch (error) {
    await rows.return(undefined);
    throw error;
  }
  if (!headerRow) {
    throw new InputError(`${file}: sheet "${sheet.name}" is empty: no header row`, {
      code: 'input-empty',
      file,
      line: 1,
      hint: 'The first row of the sheet names the columns (memberId, isActive, createdAt, …).',
    });
  }
  if (headerRow.problem) {
    throw new InputError(`${file}: sheet "${sheet.name}" header row: ${headerRow.problem.message}`, {
      code: 'input-xlsx',
      file,
      line: headerRow.number,
      hint: headerRow.problem.hint,
    });
  }
  const headers = headerRow.cells.map((h) => h.trim());
  while (headers.length > 0 && headers[headers.length - 1] === '') headers.pop();

  async function* records(): AsyncGenerator<SourceRecord[]> {
    let record = 0;
    try {
      let batch: SourceRecord[] = [];
      for (let step = await rows.next(); !step.done; step = await rows.next()) {
        if (!isBlank(step.value)) batch.push(toRecord(step.value, ++record, headers.length));
        if (batch.length >= BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      await rows.return(undefined);
      await zip.close();
    }
  }
  const ratio = entry.uncompressedSize > 0 ? entry.compressedSize / entry.uncompressedSize : 0;
  return {
    headers,
    headerLine: headerRow.number,
    sheet: sheet.name,
    records: records(),
    totalBytes: entry.compressedSize,
    bytesRead: () => Math.min(entry.compressedSize, Math.round(inflated * ratio)),
  };
}

/** Rows handed out together (one promise per batch, as the text readers do per chunk). */
const BATCH_ROWS = 500;

/** A row with nothing in it, as a blank line in a CSV file (a cell whose value is unknown is not nothing). */
function isBlank(row: SheetRow): boolean {
  return row.problems === 0 && row.cells.every((c) => c === '');
}

function toRecord(row: SheetRow, record: number, width: number): SourceRecord {
  const entry: SourceRecord = { record, line: row.number, raw: row.cells.slice(0, width) };
  const raw = entry.raw as string[];
  while (raw.length < width) raw.push('');
  const extra = row.cells.slice(width).filter((c) => c !== '');
  if (extra.length > 0) {
    entry.raw = row.cells;
    entry.error = {
      message: `${extra.length} cell${extra.length > 1 ? 's' : ''} beyond the header's ${width} columns`,
      hint: 'Give the column a header, or clear the cells.',
    };
  } else if (row.problem) {
    const others = row.problems > 1 ? ` (and ${row.problems - 1} more such cell${row.problems > 2 ? 's' : ''})` : '';
    entry.error = { message: `${row.problem.message}${others}`, hint: row.problem.hint };
  }
  return entry;
}

/**
 * The sheet by name (matched exactly: two sheets may differ only in case; one that differs in case or spaces is
 * suggested), else the first visible worksheet: the tab a person sees first when opening the file.
 */
function chooseSheet(sheets: SheetInfo[], sheetName: string | undefined, file: string): SheetInfo {
  const found =
    sheetName === undefined
      ? (sheets.find((s) => s.worksheet && !s.hidden) ?? sheets.find((s) => s.worksheet))
      : sheets.find((s) => s.name === sheetName);
  if (found && !found.worksheet) {
    throw new InputError(`${file}: sheet "${found.name}" is a chart, not a sheet of cells`, {
      code: 'input-sheet',
      file,
      hint: `Choose a sheet of cells with --sheet NAME: ${namesOf(sheets.filter((s) => s.worksheet))}.`,
    });
  }
  if (found) return found;
  const loose = (name: string) => name.toLowerCase().replace(/\s+/g, '');
  const like = sheetName === undefined ? undefined : sheets.find((s) => loose(s.name) === loose(sheetName))?.name;
  const named = `${file}: no sheet named "${sheetName}"${like ? ` (did you mean "${like}"?)` : ''}`;
  throw new InputError(sheetName === undefined ? `${file}: the workbook has no sheet` : named, {
    code: 'input-sheet',
    file,
    hint: sheets.length
      ? `Its sheets: ${namesOf(sheets)}; choose one with --sheet NAME.`
      : 'Check that the file is an Excel workbook.',
  });
}

function namesOf(sheets: SheetInfo[]): string {
  return sheets.map((s) => `"${s.name}"${s.hidden ? ' (hidden)' : ''}`).join(', ');
}

/** One row at a time from batches of rows. */
async function* flatten(batches: AsyncGenerator<SheetRow[]>): AsyncGenerator<SheetRow> {
  for await (const batch of batches) yield* batch;
}
