/**
 * Writes a workbook of ROWS member rows (Excel's limit: 1,048,575 under a header) for the .xlsx reader's memory
 * figure (docs/performance.md): `node bench/xlsx-big.mjs 1048575 /tmp/big.xlsx [--shared-strings]`. With
 * --shared-strings every text cell (two unique per row) goes into the shared strings table, as Excel writes them:
 * the table the reader holds whole; without it the text is inline.
 */
import { renameSync } from 'node:fs';
import ExcelJS from 'exceljs';

const [rowsArg = '1048575', path = 'big.xlsx', flag] = process.argv.slice(2);
const rows = Number(rowsArg);
const part = `${path}.part.xlsx`;
const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: part, useSharedStrings: flag === '--shared-strings' });
const sheet = book.addWorksheet('Members');
sheet.addRow(['memberId', 'email', 'phone', 'isActive', 'createdAt', 'address.countryCode']).commit();
for (let i = 1; i <= rows; i++) {
  sheet
    .addRow([
      `M${String(i).padStart(9, '0')}`,
      `m.${i}@example.com`,
      46700000000 + i,
      i % 7 !== 0,
      new Date(Date.UTC(2024, i % 12, 1 + (i % 28))),
      'SE',
    ])
    .commit();
}
sheet.commit();
await book.commit();
renameSync(part, path);
