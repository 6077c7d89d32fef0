/**
 * A worksheet's rows, streamed from its part: each `<row>` of `<sheetData>` becomes its row number and its cells as
 * text from column A on (a cell left out is empty). A row or cell without its `r` reference follows the one before
 * it, as Excel reads it. Damage that leaves the file's values unknowable refuses the file (InputError): a shared
 * string index past the table's end or not written in decimal digits, rows or cells out of order or twice, a reference beyond Excel's grid. A cell
 * whose value is unknown (an error cell, a formula with no saved result) makes its row's record invalid.
 */
import { InputError } from '../../errors.js';
import { MAX_RECORD_BYTES } from '../record-limits.js';
import {
  booleanCell,
  type CellProblem,
  type CellText,
  errorCell,
  formulaWithoutValue,
  isoDateCell,
  numberCell,
} from './cell-values.js';
import { GENERAL, type NumberFormat } from './number-formats.js';
import { decodeEscapes } from './shared-parts.js';
import type { StringTable } from './string-table.js';
import { type XmlFeed, xmlFeed } from './xml-stream.js';
import { MAX_SHEET_BYTES, type ZipParts } from './zip-parts.js';

const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_384;

export interface SheetRow {
  /** The spreadsheet row number (1-based). */
  number: number;
  cells: string[];
  /** The first cell whose value is unknown, and how many such cells the row has. */
  problem?: CellProblem;
  problems: number;
}

export interface SheetContext {
  file: string;
  sheet: string;
  part: string;
  strings: Pick<StringTable, 'get' | 'length'>;
  /** Each cell style's number format; a style past the list is General. */
  formats: readonly NumberFormat[];
  date1904: boolean;
}

interface OpenCell {
  ref: string;
  column: number;
  type: string;
  style: number;
  formula: boolean;
  value?: string;
  inline?: string;
}

/** Rows as each inflated chunk completes them (a batch per chunk, never empty); `inflated` counts the bytes. */
export async function* sheetRows(
  zip: ZipParts,
  context: SheetContext,
  inflated: (bytes: number) => void,
): AsyncGenerator<SheetRow[]> {
  let done: SheetRow[] = [];
  const feed = rowFeed(context, (row) => done.push(row));
  for await (const chunk of zip.chunks(context.part, MAX_SHEET_BYTES)) {
    inflated(chunk.length);
    feed.write(chunk);
    if (done.length > 0) {
      yield done;
      done = [];
    }
  }
  if (zip.closed) return;
  feed.end();
  if (done.length > 0) yield done;
}

function rowFeed(context: SheetContext, emit: (row: SheetRow) => void): XmlFeed {
  const refuse = (why: string) =>
    new InputError(`${context.file}: sheet "${context.sheet}" ${why}`, {
      code: 'input-xlsx',
      file: context.file,
      hint: 'The workbook is damaged (a truncated or corrupt export): export it again, or open it in Excel and save it again.',
    });
  let inData = false;
  let row: SheetRow | undefined;
  let lastRow = 0;
  let rowChars = 0;
  let cell: OpenCell | undefined;
  let capture: 'v' | 't' | undefined;
  let phonetic = 0;

  const finishCell = (c: OpenCell) => {
    const result = cellText(c, context, refuse);
    rowChars += result.text.length;
    if (rowChars > MAX_RECORD_BYTES)
      throw refuse(`row ${row!.number} holds over ${MAX_RECORD_BYTES / 1024 / 1024} MB of text`);
    while (row!.cells.length < c.column - 1) row!.cells.push('');
    row!.cells.push(result.text);
    if (result.problem) {
      row!.problems++;
      row!.problem ??= result.problem;
    }
  };

  return xmlFeed(context.file, context.part, {
    open(name, attributes) {
      if (name === 'sheetData') inData = true;
      if (!inData) return;
      if (name === 'row') {
        const number = attributes.r === undefined ? lastRow + 1 : Number(attributes.r);
        if (!Number.isInteger(number) || number < 1 || number > MAX_ROW)
          throw refuse(`has a row numbered "${attributes.r}"`);
        if (number <= lastRow) throw refuse(`has row ${number} after row ${lastRow}`);
        lastRow = number;
        rowChars = 0;
        row = { number, cells: [], problems: 0 };
      } else if (name === 'c' && row) {
        const column = attributes.r === undefined ? row.cells.length + 1 : columnOf(attributes.r, row.number);
        if (column === undefined)
          throw refuse(`row ${row.number} has a cell "${attributes.r}" outside it or Excel's grid`);
        if (column <= row.cells.length)
          throw refuse(`row ${row.number} has cell ${cellRef(column, row.number)} twice or out of order`);
        const style = Number(attributes.s ?? 0);
        cell = { ref: cellRef(column, row.number), column, type: attributes.t ?? 'n', style, formula: false };
      } else if (cell) {
        if (name === 'f') cell.formula = true;
        else if (name === 'v') {
          capture = 'v';
          cell.value = '';
        } else if (name === 'is') cell.inline = '';
        else if (name === 'rPh') phonetic++;
        else if (name === 't' && cell.inline !== undefined && phonetic === 0) capture = 't';
      }
    },
    close(name) {
      if (name === 'sheetData') inData = false;
      else if (name === 'v' || name === 't') capture = undefined;
      else if (name === 'rPh') phonetic--;
      else if (name === 'c' && cell) {
        finishCell(cell);
        cell = undefined;
      } else if (name === 'row' && row) {
        emit(row);
        row = undefined;
      }
    },
    text(text) {
      if (capture === 'v') cell!.value += text;
      else if (capture === 't') cell!.inline += text;
    },
  });
}

function cellText(c: OpenCell, context: SheetContext, refuse: (why: string) => InputError): CellText {
  if (c.type === 'inlineStr' || (c.inline !== undefined && c.value === undefined)) {
    return { text: decodeEscapes(c.inline ?? c.value ?? '') };
  }
  if (c.value === undefined) return c.formula ? formulaWithoutValue(c.ref) : { text: '' };
  switch (c.type) {
    case 's': {
      // only decimal digits, as Excel writes them: Number() would read "" as 0, "0x1" as 1, " 2" as 2
      if (!/^\d{1,10}$/.test(c.value))
        throw refuse(`cell ${c.ref} holds "${c.value}" where a shared string index belongs`);
      const text = context.strings.get(Number(c.value));
      if (text === undefined) {
        throw refuse(
          `cell ${c.ref} refers to shared string ${c.value}, but the workbook's table holds ${context.strings.length}`,
        );
      }
      return { text };
    }
    case 'str':
      return { text: decodeEscapes(c.value) };
    case 'b':
      return booleanCell(c.ref, c.value);
    case 'e':
      return errorCell(c.ref, c.value);
    case 'd':
      return isoDateCell(c.ref, c.value);
    default:
      return numberCell(c.ref, c.value, context.formats[c.style] ?? GENERAL, context.date1904);
  }
}

/** "B7" → 2, when it lies in row 7 and in Excel's grid; undefined otherwise. */
function columnOf(ref: string, rowNumber: number): number | undefined {
  const m = /^([A-Z]{1,3})(\d+)$/.exec(ref);
  if (!m || Number(m[2]) !== rowNumber) return undefined;
  let column = 0;
  for (const letter of m[1]!) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column <= MAX_COLUMN ? column : undefined;
}

function cellRef(column: number, rowNumber: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return `${letters}${rowNumber}`;
}
