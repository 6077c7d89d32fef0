/** The lines validate and import print about the cells "onInvalid": "omit" left out (issue 24 item 5), one per field. */
import type { OmittedCellsReport } from '../../core/omitted-cells.js';

/** The summary's lines, one per field: `phone: 69 cells not sent ("onInvalid": "omit"), lines 12, 40, …: reason`. */
export function omittedCellsLines(report: OmittedCellsReport | undefined): string[] {
  return Object.entries(report ?? {}).map(([path, { cells, lines, firstReason }]) => {
    const more = cells > lines.length ? ', …' : '';
    return `${path}: ${cells.toLocaleString('en-US')} cell${cells === 1 ? '' : 's'} not sent ("onInvalid": "omit"), line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}${more}; first: ${firstReason}`;
  });
}
