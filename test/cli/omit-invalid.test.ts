/**
 * `"onInvalid": "omit"` through the CLI (issue 24 item 5): validate and import count each left-out cell by field,
 * in the summary ("phone: 69 cells not sent") and in --json (`omittedCells`), exactly, with the CSV parsed on the
 * main thread and in the worker (MEMBERCTL_CSV_WORKER=always; Node's 'worker' event counts the threads started),
 * through the whole command line in-process.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAP = join(dir, 'map.json');
writeFileSync(
  MAP,
  JSON.stringify({
    columns: { Id: 'memberId', Phone: { field: 'phone', convert: 'e164', onInvalid: 'omit' }, Active: 'isActive' },
    fields: { createdAt: { value: '2024-01-01T00:00:00Z' } },
  }),
);

// 6,000 rows (several chunks): 69 phones no country has, and one row invalid for another reason
const CSV = join(dir, 'members.csv');
const lines = ['Id,Phone,Active'];
const bad: number[] = [];
for (let r = 1; r <= 6000; r++) {
  const wrong = r % 83 === 5 && bad.length < 69;
  if (wrong) bad.push(r + 1);
  lines.push(
    `m${r},${wrong ? '+1 555 010 0100' : `+47 912 ${String(10000 + r).slice(1, 3)} ${String(100 + (r % 900))}`},${r === 4000 ? 'maybe' : 'yes'}`,
  );
}
writeFileSync(CSV, `${lines.join('\n')}\n`);

/** The command line in-process; `workers`: the worker threads it started (Node's 'worker' event, for this run only). */
async function run(args: string[], worker: 'always' | 'never') {
  let workers = 0;
  const count = () => void workers++;
  process.on('worker', count);
  try {
    const result = await runInProcess([...args, CSV, '--map', MAP], isolatedEnv({ MEMBERCTL_CSV_WORKER: worker }));
    return { ...result, workers };
  } finally {
    process.off('worker', count);
  }
}

describe('"onInvalid": "omit" through the CLI', () => {
  const expected = {
    phone: { cells: 69, lines: bad.slice(0, 5), firstReason: expect.stringContaining('+1 555 010 0100') },
  };

  for (const worker of ['never', 'always'] as const) {
    it(`import --json and validate --json count each left-out cell exactly (worker: ${worker})`, async () => {
      const imported = await run(['import', '--sandbox', '--no-journal', '--json'], worker);
      expect(imported.workers).toBe(worker === 'always' ? 1 : 0);
      expect(imported.code, imported.stderr).toBe(3);
      const report = JSON.parse(imported.stdout) as Record<string, unknown>;
      expect(report).toMatchObject({ rows: 6000, invalid: 1, importedCount: 5999, omittedCells: expected });
      const validated = await run(['validate', '--json'], worker);
      expect(JSON.parse(validated.stdout)).toMatchObject({ rows: 6000, valid: 5999, omittedCells: expected });
    });
  }

  it('the summaries say it, one line per field, with the first lines and reason', async () => {
    const line = `phone: 69 cells not sent ("onInvalid": "omit"), lines ${bad.slice(0, 5).join(', ')}, …; first: "+1 555 010 0100": not a valid number for calling code +1`;
    const imported = await run(['import', '--sandbox', '--no-journal'], 'never');
    expect(imported.stdout + imported.stderr).toContain(line);
    const validated = await run(['validate'], 'never');
    expect(validated.stdout).toContain(line);
  });
});
