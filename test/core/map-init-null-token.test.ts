/**
 * `map init --null-token`: the sample is read with the import's rule (csv-mapper.ts), so a column of `\N` or
 * `NULL` placeholders is not taken for data; a quoted cell equal to the token is text (PostgreSQL COPY's rule).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initMapping } from '../../src/core/map-init/map-init.js';

const CSV = [
  'memberId,email,createdAt,Birthday,Middle Name',
  'm1,a@example.com,2024-01-05T09:00:00Z,1990-01-05,NULL',
  'm2,b@example.com,2024-01-05T09:00:00Z,\\N,NULL',
  'm3,c@example.com,2024-01-05T09:00:00Z,\\N,"NULL"',
  'm4,d@example.com,2024-01-05T09:00:00Z,1991-02-06,NULL',
  'm5,e@example.com,2024-01-05T09:00:00Z,\\N,NULL',
].join('\n');

function exportFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'memberctl-null-token-')), 'export.csv');
  writeFileSync(path, `${CSV}\n`);
  return path;
}

const noteOf = (notes: string[], column: string) => notes.find((note) => note.startsWith(`"${column}"`)) ?? '';

describe('map init --null-token', () => {
  it('a date column holding \\N placeholders is proposed as the date it is', async () => {
    const without = await initMapping({ path: exportFile() });
    expect(without.mapping.columns.Birthday).toBe('metadata.birthday'); // "\N" read as data: no dates
    const init = await initMapping({ path: exportFile(), nullToken: '\\N' });
    expect(JSON.stringify(init.mapping.columns.Birthday)).toContain('birthdate');
    expect(noteOf(init.notes, 'Birthday')).toContain('2 of 5 filled');
  });

  it('a column of NULL placeholders is no data; its quoted "NULL" is', async () => {
    const init = await initMapping({ path: exportFile(), nullToken: 'NULL' });
    expect(noteOf(init.notes, 'Middle Name')).toContain('1 of 5 filled');
    expect(noteOf(await initMapping({ path: exportFile() }).then((i) => i.notes), 'Middle Name')).toContain(
      '5 of 5 filled',
    );
  });

  it('the validate command it suggests reads the file the same way', async () => {
    const init = await initMapping({ path: exportFile(), nullToken: '\\N' });
    expect(init.validateCommand).toMatch(/ --null-token '\\N'$/);
    expect(init.mapping.description).toContain("--null-token '\\N' --map <this file>");
  });
});

describe('memberctl map init --null-token', () => {
  it('reaches the sample from the command line', async () => {
    const { runInProcess } = await import('../cli/run-in-process.js');
    const { isolatedEnv } = await import('../e2e/config-cli-helper.js');
    const run = await runInProcess(['map', 'init', exportFile(), '--null-token', '\\N', '--json'], isolatedEnv());
    expect(run.code).toBe(0);
    expect(JSON.stringify(JSON.parse(run.stdout).mapping.columns.Birthday)).toContain('birthdate');
  });
});
