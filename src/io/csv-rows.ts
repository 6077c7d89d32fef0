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

/**
 * Missing trailing cells are "not given" (padded with ''); surplus cells that are empty (a trailing delimiter)
 * are dropped, as no data is lost; a surplus cell with content makes the record unreadable, since the
 * cells can no longer be trusted to sit under their headers. Mutates `cells` to the header's width.
 */
export function rowLengthError(cells: string[], width: number): { message: string; hint: string } | undefined {
  if (cells.length < width) {
    while (cells.length < width) cells.push('');
    return undefined;
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
