/**
 * An .xlsx workbook's first sheet (or the one --sheet names), streamed through exceljs' WorkbookReader: rows are
 * read as they are unzipped, so memory stays flat however long the sheet. The first non-empty row is the header;
 * each later row is a record whose `line` is its spreadsheet row number. Cells become the text a CSV export of
 * the sheet would hold, so the mapping reads a workbook exactly as it reads a CSV file:
 * - a date cell: "2023-01-05" at midnight, else "2023-01-05T10:22:00" (Excel stores no zone: a "timeZone" rule
 *   says where it was written; without one a date-time is refused, as in a CSV file);
 * - a boolean cell: "true" / "false"; a number: its digits (15 significant, as Excel shows them; a phone number
 *   stored as a number keeps its digits, never 4.79e9);
 * - a formula: its cached result; rich text: its text; an error cell: its code (#N/A).
 */
import { createRequire } from 'node:module';
import { InputError } from '../errors.js';
import type { SourceRecord } from './source.js';

type ExcelJs = typeof import('exceljs');
const excel = (): ExcelJs => createRequire(import.meta.url)('exceljs') as ExcelJs;

/** Rows handed out together (one promise per batch, as the text readers do per chunk). */
const BATCH_ROWS = 500;

export interface WorkbookRecords {
  headers: string[];
  sheet: string;
  records: AsyncGenerator<SourceRecord[]>;
}

interface RowLike {
  number: number;
  values: unknown[] | Record<string, unknown>;
}

export async function openXlsx(
  input: NodeJS.ReadableStream,
  file: string,
  sheetName: string | undefined,
): Promise<WorkbookRecords> {
  const reader = new (excel().stream.xlsx.WorkbookReader)(input as never, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const sheets = reader[Symbol.asyncIterator]();
  const seen: string[] = [];
  let rows: AsyncIterator<RowLike> | undefined;
  let sheet = '';
  try {
    for (let step = await sheets.next(); !step.done; step = await sheets.next()) {
      const worksheet = step.value as unknown as AsyncIterable<RowLike> & { name: string };
      seen.push(worksheet.name);
      if (sheetName === undefined || worksheet.name === sheetName) {
        rows = worksheet[Symbol.asyncIterator]();
        sheet = worksheet.name;
        break;
      }
    }
  } catch (error) {
    throw unreadable(file, error);
  }
  if (!rows) {
    // names are matched exactly (two sheets may differ only in case); one that differs in case or spaces is suggested
    const loose = (name: string) => name.toLowerCase().replace(/\s+/g, '');
    const like = sheetName === undefined ? undefined : seen.find((name) => loose(name) === loose(sheetName));
    const named = `${file}: no sheet named "${sheetName}"${like ? ` (did you mean "${like}"?)` : ''}`;
    throw new InputError(sheetName === undefined ? `${file}: the workbook has no sheet` : named, {
      code: 'input-sheet',
      file,
      hint: seen.length
        ? `Its sheets: ${seen.map((s) => `"${s}"`).join(', ')}; choose one with --sheet NAME.`
        : 'Check that the file is an Excel workbook.',
    });
  }
  const next = async (): Promise<RowLike | undefined> => {
    try {
      const step = await rows!.next();
      return step.done ? undefined : step.value;
    } catch (error) {
      throw unreadable(file, error);
    }
  };

  let headerRow: RowLike | undefined;
  for (let row = await next(); row; row = await next()) {
    if (cellsOf(row).some((c) => c !== '')) {
      headerRow = row;
      break;
    }
  }
  if (!headerRow)
    throw new InputError(`${file}: sheet "${sheet}" is empty: no header row`, {
      code: 'input-empty',
      file,
      line: 1,
      hint: 'The first row of the sheet names the columns (memberId, isActive, createdAt, …).',
    });
  const headers = cellsOf(headerRow).map((h) => h.trim());
  while (headers.length > 0 && headers[headers.length - 1] === '') headers.pop();
  const width = headers.length;

  async function* records(): AsyncGenerator<SourceRecord[]> {
    let record = 0;
    let batch: SourceRecord[] = [];
    try {
      for (let row = await next(); row; row = await next()) {
        const cells = cellsOf(row);
        if (cells.every((c) => c === '')) continue; // a blank row, as a blank line in a CSV file
        const entry: SourceRecord = { record: ++record, line: row.number, raw: cells.slice(0, width) };
        while ((entry.raw as string[]).length < width) (entry.raw as string[]).push('');
        const extra = cells.slice(width).filter((c) => c !== '');
        if (extra.length > 0) {
          entry.raw = cells;
          entry.error = {
            message: `${extra.length} cell${extra.length > 1 ? 's' : ''} beyond the header's ${width} columns`,
            hint: 'Give the column a header, or clear the cells.',
          };
        }
        batch.push(entry);
        if (batch.length >= BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      await rows!.return?.();
    }
  }
  return { headers, sheet, records: records() };
}

/** A row's cells as text, from column A on (exceljs' values are 1-based and sparse). */
function cellsOf(row: RowLike): string[] {
  const values = Array.isArray(row.values) ? row.values : [];
  const cells: string[] = [];
  for (let i = 1; i < values.length; i++) cells.push(cellText(values[i]));
  return cells;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numberText(value);
  if (value instanceof Date) return dateText(value);
  if (typeof value === 'object') {
    const v = value as {
      result?: unknown;
      richText?: { text: string }[];
      text?: unknown;
      error?: string;
      sharedString?: number;
    };
    if ('result' in v) return cellText(v.result);
    if (v.richText) return v.richText.map((part) => part.text).join('');
    if (v.text !== undefined) return cellText(v.text);
    if (v.error !== undefined) return v.error;
  }
  return String(value);
}

function numberText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  return String(Number(n.toPrecision(15)));
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  // Excel keeps times as fractions of a day: 10:22 may come back as 10:21:59.999
  const ms = Math.round(date.getTime() / 1000) * 1000;
  const iso = new Date(Math.abs(date.getTime() - ms) <= 1 ? ms : date.getTime()).toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}

function unreadable(file: string, error: unknown): InputError {
  return new InputError(`${file}: not a readable Excel workbook (${(error as Error).message})`, {
    code: 'input-xlsx',
    file,
    hint: 'Open it in Excel and save it again as .xlsx, or as CSV.',
    cause: error,
  });
}
