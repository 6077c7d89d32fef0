/** The CSV header's checks and the rule for rows whose cell count differs from the header's. */
import { InputError } from '../errors.js';

/** Header cells trimmed; the same name twice is an InputError naming both columns (which one holds the data?). */
export function checkHeaders(cells: string[], file: string, line: number): string[] {
  const headers = cells.map((cell) => cell.trim());
  const firstColumn = new Map<string, number>();
  const duplicates: string[] = [];
  headers.forEach((name, index) => {
    const first = firstColumn.get(name);
    if (first === undefined) firstColumn.set(name, index + 1);
    else duplicates.push(`${quotedHeader(name)} (columns ${first} and ${index + 1})`);
  });
  if (duplicates.length > 0) {
    throw new InputError(
      `${file} line ${line}: duplicate column${duplicates.length > 1 ? 's' : ''} ${duplicates.join(', ')}`,
      {
        code: 'input-duplicate-headers',
        file,
        line,
        hint: 'Each column needs its own name: rename or remove the repeated one.',
      },
    );
  }
  return headers;
}

/** A header's name for a message: quoted, its first 60 characters (a broken file's "name" can be megabytes). */
export function quotedHeader(name: string): string {
  return `"${name.length > 60 ? `${name.slice(0, 60)}…` : name}"`;
}

/** Why a short row is refused, and the way out for an export that leaves out trailing empty cells. */
const SHORT_ROW_HINT =
  'a value left out in the middle shifts every cell after it; if the export leaves out trailing empty cells, --pad-short-rows reads them as empty';

/**
 * A row of another width than the header. Short: refused (a cell left out in the middle would shift the others
 * under the wrong headers), unless `padShortRows` (--pad-short-rows), which fills the missing trailing cells with
 * '' and says so (`padded`). Surplus cells that are empty (a trailing delimiter) are dropped, as no data is lost;
 * a surplus cell with content makes the record unreadable. A refused row keeps its cells as read (the rejects file
 * writes them back as they are); `cells` changes only to the header's width. No Error object: a file of short
 * rows costs a few strings per row (docs/performance.md).
 */
export function checkRowLength(
  cells: string[],
  width: number,
  padShortRows: boolean,
): { message: string; hint: string } | 'padded' | undefined {
  if (cells.length < width) {
    if (!padShortRows)
      return { message: `the row has ${cells.length} cells but the header has ${width}`, hint: SHORT_ROW_HINT };
    while (cells.length < width) cells.push('');
    return 'padded';
  }
  let firstExtra = -1;
  for (let i = width; i < cells.length; i++) {
    if (cells[i]!.trim() !== '') {
      firstExtra = i;
      break;
    }
  }
  if (firstExtra === -1) {
    cells.length = width;
    return undefined;
  }
  const value = cells[firstExtra]!.trim();
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return {
    message: `the row has ${cells.length} cells but the header has ${width} (cell ${firstExtra + 1} is "${shown}")`,
    hint: 'a value containing the delimiter must be quoted, e.g. "Smith, John"',
  };
}
