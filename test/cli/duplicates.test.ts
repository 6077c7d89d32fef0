/**
 * Duplicate memberIds end to end (issue 24 item 4): what only the built CLI shows — the --duplicates flag, the
 * summary line and the --json key of validate and import, the rejects file, and the same verdicts whether the CSV
 * is parsed in the worker thread or on the main thread (MEMBERCTL_CSV_WORKER).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADER, isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (id: string, name: string) => `${id},${id.toLowerCase()}@example.com,${name},true,2024-01-05T09:00:00Z`;
// two people sharing one memberId (lines 2 and 4), one row exported twice (lines 3 and 5)
const path = join(dir, 'crm.csv');
writeFileSync(
  path,
  `${[HEADER, row('P1', 'Paula'), row('Q1', 'Quinn'), row('P1', 'Peter'), row('Q1', 'Quinn'), row('R1', 'Rae')].join('\n')}\n`,
);

describe('duplicate memberIds', () => {
  it('validate: the summary says the last row wins and names the memberId and its lines; --json has duplicateMembers', async () => {
    const human = await runInProcess(['validate', path], isolatedEnv());
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      'Duplicate memberIds: 1 on rows with other content, the last row in file order wins (--duplicates refuse makes the later rows invalid): "P1" lines 2, 4; 1 row repeating an earlier row exactly (harmless).',
    );
    const json = await runInProcess(['validate', path, '--json'], isolatedEnv());
    expect(JSON.parse(json.stdout).duplicateMembers).toEqual({
      rule: 'last-wins',
      count: 1,
      sample: [{ memberId: 'P1', lines: [2, 4] }],
      laterRows: 1,
      identicalRows: 1,
    });
  });

  it.each(['always', 'never'])(
    'import --duplicates refuse (CSV worker %s): the later row is invalid, in the rejects file, and never sent',
    async (worker) => {
      const rejects = join(dir, `rejects-${worker}.csv`);
      const args = [
        'import',
        path,
        '--sandbox',
        '--json',
        '--no-journal',
        '--duplicates',
        'refuse',
        '--rejects',
        rejects,
      ];
      const r = await runInProcess(args, isolatedEnv({ MEMBERCTL_CSV_WORKER: worker }));
      expect(r.code).toBe(3);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({ rows: 5, invalid: 1, importedCount: 3, updatedCount: 1 });
      expect(report.duplicateMembers).toMatchObject({ rule: 'refuse', count: 1, laterRows: 1, identicalRows: 1 });
      expect(readFileSync(rejects, 'utf8')).toContain(
        'P1,p1@example.com,Peter,true,2024-01-05T09:00:00Z,invalid,"memberId ""P1"" also on line 2, with other content (--duplicates refuse)"',
      );
    },
  );

  it('a rule that does not exist is a usage error naming the choices', async () => {
    const r = await runInProcess(['validate', path, '--duplicates', 'first-wins'], isolatedEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('last-wins');
    expect(r.stderr).toContain('refuse');
  });
});
