/** Writes one CSV line (RFC 4180 quoting) so csv-parse, Excel and our reader read the cells back unchanged. */
export function csvLine(cells: readonly string[], delimiter: string): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += delimiter;
    line += quoteCell(cells[i]!, delimiter);
  }
  return line;
}

function quoteCell(cell: string, delimiter: string): string {
  const needsQuotes =
    cell.includes(delimiter) ||
    cell.includes('"') ||
    cell.includes('\n') ||
    cell.includes('\r') ||
    cell !== cell.trim();
  return needsQuotes ? `"${cell.replaceAll('"', '""')}"` : cell;
}
