/**
 * A hostile header: a column name of megabytes (a file whose first line never breaks, a stray quote). It is named
 * in a short message (its first characters), and looking for the field it might be a typo of does not compare it
 * letter by letter with every field name (an edit distance on a 3 MB name took 6 s per candidate list).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = isolatedEnv();
const LONG = 'y'.repeat(3 * 1024 * 1024);

function csv(name: string, header: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${header}\nm1,true,2024-01-05T09:00:00Z,x,x\n`);
  return path;
}

const shortLines = (text: string) => text.split('\n').every((line) => line.length < 600);

describe('a column name of megabytes', () => {
  it('is an unknown column named by its first characters', async () => {
    const path = csv('long-name.csv', `memberId,isActive,createdAt,${LONG},z`);
    const r = await runInProcess(['validate', path], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^error: ${path} line 1: unknown columns "y{60}…" \\(column 4\\), "z" \\(column 5\\)\\n`),
    );
    expect(shortLines(r.stderr)).toBe(true);
  });

  it('skipped with --ignore-unknown-columns, its warning is short too', async () => {
    const path = csv('long-ignored.csv', `memberId,isActive,createdAt,${LONG},z`);
    const r = await runInProcess(['validate', path, '--ignore-unknown-columns', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`ignoring unknown column "${'y'.repeat(60)}…" (column 4)`);
    expect(shortLines(r.stderr)).toBe(true);
  });

  it('when a required field is missing, the headers that look like it are searched quickly and named shortly', async () => {
    const path = csv('long-missing.csv', `memberId,isActive,${LONG}created,z`);
    const r = await runInProcess(['validate', path, '--ignore-unknown-columns'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('createdAt');
    expect(shortLines(r.stderr)).toBe(true);
  });

  it('twice is a duplicate named by its first characters', async () => {
    const path = csv('long-twice.csv', `memberId,isActive,createdAt,${LONG},${LONG}`);
    const r = await runInProcess(['validate', path], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`duplicate column "${'y'.repeat(60)}…" (columns 4 and 5)`);
    expect(shortLines(r.stderr)).toBe(true);
  });
});
