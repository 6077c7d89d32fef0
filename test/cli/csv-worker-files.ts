/** CSV files for the CSV worker tests: in-process in test/cli, and the one spawned in test/e2e/csv-worker-death.test.ts. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const HEADER = 'memberId,email,firstName,isActive,createdAt';
export const row = (r: number, name = `Name${r}`) => `m${r},m${r}@example.com,${name},true,2024-01-05T09:00:00Z`;

/**
 * One UTF-8 file with most of what a CSV can hold: a BOM, every line end, quotes, blank lines, bad rows, no final
 * line break. Written to `dir`; returns its path.
 */
export function trickyCsv(dir: string): string {
  const path = join(dir, 'tricky.csv');
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from(`\ufeff${HEADER}\r\n${row(1)}\r\n${row(2)}\r${row(3)}\n`),
      Buffer.from(
        `m4,m4@example.com,"Quoted ""name""\r\nwith a line, and a comma",true,2024-01-05T09:00:00Z\n\n   \n\t\n`,
      ),
      Buffer.from(
        `${row(5, 'Ren\u00e9 \u{1F600} \u{10FFFF}')}\r\nm6,not-an-email,N6,maybe,2024-13-45\nm7,short\n${row(8)},extra\n`,
      ),
      Buffer.from(`${row(9, 'Nul\u0000byte')}\nm10,m10@example.com,Bad`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`,true,2024-01-05T09:00:00Z\n`),
      Buffer.from(`m11,m11@example.com,"A\nB`),
      Buffer.from([0xc3]),
      Buffer.from(`\nC",true,2024-01-05T09:00:00Z\n`),
      Buffer.from(`m12,m12@example.com,Zo\u00eb,true,2024-01-05T09:00:00Z\n`),
      Buffer.from(`${row(13, 'Zo\u00eb')}\n`, 'latin1'),
      Buffer.from(`\n${row(14)}\r\n${row(15)}`),
    ]),
  );
  return path;
}
