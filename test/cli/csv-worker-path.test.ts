/**
 * The CSV parsing worker through the whole command line, in-process (test/cli/run-in-process.ts). A file of 2 MB or
 * more is parsed in a worker thread; these files are small, so MEMBERCTL_CSV_WORKER=always (in the run's own
 * environment) forces it here, and each tricky file is imported both ways: the --json report (timing aside), the
 * rejects file, stderr and the exit code must be the same. Node's 'worker' event counts the threads each run
 * started, so the test knows which path each run took. A worker that fails as it starts (only a module preloaded
 * into a real process's worker threads can make it) stays spawned in test/e2e/csv-worker-death.test.ts; one that runs
 * out of memory midway is test/cli/csv-worker-death.test.ts.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { inputOptionsFrom } from '../../src/cli/input-options.js';
import { recordPathOf } from '../../src/io/output-record.js';
import { isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { HEADER, row, trickyCsv } from './csv-worker-files.js';
import { runInProcess } from './run-in-process.js';

const dir = tempDir();
/** Each run's whole environment: MEMBERCTL_CSV_WORKER as a user would set it (process.env is never touched). */
const envs = {
  always: isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always' }),
  never: isolatedEnv({ MEMBERCTL_CSV_WORKER: 'never' }),
};
afterAll(() => {
  for (const path of [dir, envs.always.HOME!, envs.never.HOME!]) rmSync(path, { recursive: true, force: true });
});

const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

const tricky = trickyCsv(dir);
const rows = (count: number, name = (r: number) => `Name${r}`) =>
  Array.from({ length: count }, (_, i) => row(i + 1, name(i + 1)));

/** Rows of other widths than the header: short (a trailing cell or one in the middle left out), long, quoted. */
const widths = file(
  'widths.csv',
  [
    'memberId,isActive,createdAt,email,firstName',
    'w1,true,2024-01-05T09:00:00Z,w1@example.com,One',
    'w2,true,2024-01-05T09:00:00Z,w2@example.com',
    'w3,true,2024-01-05T09:00:00Z,"Smith, Ann"',
    'w4,true,2024-01-05T09:00:00Z,w4@example.com,Smith, Ann',
    '"w5",true,2024-01-05T09:00:00Z,"w5@example.com","Say ""hi""\r\nthere",extra',
    'w6,true,2024-01-05T09:00:00Z,"w6@example.com\nsecond line"',
    '',
  ].join('\r\n'),
);

const cases: Array<{ name: string; args: string[]; code: number; rejects?: string }> = [
  { name: 'short and long rows, refused and written back as read', args: [widths], code: 3, rejects: 'rejects.csv' },
  {
    name: '--pad-short-rows',
    args: [widths, '--pad-short-rows'],
    code: 3,
    rejects: 'rejects.csv',
  },
  { name: '--pad-short-rows, rejects as NDJSON', args: [widths, '--pad-short-rows'], code: 3 },
  { name: 'every line end, quotes, blank lines, bad rows and bytes', args: [tricky], code: 3 },
  { name: 'a shard of it, limited', args: [tricky, '--shard', '1/2', '--limit', '9'], code: 3 },
  {
    name: '--encoding windows-1252',
    args: [
      file('cp1252.csv', Buffer.from([HEADER, ...rows(6, (r) => `Jos\u00e9 ${r} \u00e6`)].join('\r\n'), 'latin1')),
      '--encoding',
      'windows-1252',
    ],
    code: 0,
  },
  {
    name: 'UTF-16LE with a BOM',
    args: [
      file(
        'utf16.csv',
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from(`${[HEADER, ...rows(5, () => '\u00c5sa \u{1F600}')].join('\r\n')}\r\n`, 'utf16le'),
        ]),
      ),
    ],
    code: 0,
  },
  {
    name: 'lone CR line ends with a bad byte three rows down',
    args: [
      file(
        'mac.csv',
        Buffer.concat([
          Buffer.from(`${HEADER}\r${row(1)}\r${row(2)}\rm3,m3@example.com,X`),
          Buffer.from([0xe9]),
          Buffer.from(`,true,2024-01-05T09:00:00Z\r${row(4)}\r`),
        ]),
      ),
    ],
    code: 3,
  },
  {
    // the worker reads further ahead than the main thread: what the not-UTF-8 warning says ("is not UTF-8" or
    // "mixes UTF-8 with another encoding") depends on the records read, not on bytes read ahead of --limit
    name: '--limit before the UTF-8 text of a file that mixes encodings',
    args: [
      file(
        'mixed-late.csv',
        Buffer.concat([
          Buffer.from(`${HEADER}\n`),
          Buffer.from(`${row(1, 'Ren\u00e9')}\n`, 'latin1'),
          Buffer.from(`${rows(4000).slice(1).join('\n')}\n${row(4001, 'Zo\u00eb')}\n`),
        ]),
      ),
      '--limit',
      '5',
    ],
    code: 3,
  },
  {
    name: 'a quote never closed near the end',
    args: [
      file(
        'unclosed.csv',
        `${[HEADER, ...rows(8)].join('\n')}\nm9,m9@example.com,"oops,true,2024-01-05T09:00:00Z\n${row(10)}\n`,
      ),
    ],
    code: 2,
  },
  {
    name: 'a header that is not UTF-8',
    args: [
      file(
        'bad-header.csv',
        Buffer.concat([
          Buffer.from('memberId,email,first'),
          Buffer.from([0xe9]),
          Buffer.from(`,isActive,createdAt\n${row(1)}\n`),
        ]),
      ),
    ],
    code: 2,
  },
];

interface Outcome {
  code: number | null;
  report: unknown;
  stderr: string;
  rejects: string | undefined;
  workers: number;
}

/**
 * `memberctl import ARGS --sandbox --json --no-journal --rejects FILE` with MEMBERCTL_CSV_WORKER=`mode`. Every run
 * writes the same rejects path (its name appears in the messages both runs must share), so the runs take turns: the
 * file is read and removed before the next run.
 */
async function importWith(mode: 'always' | 'never', args: string[], rejectsName = 'rejects.ndjson'): Promise<Outcome> {
  const rejectsPath = join(dir, rejectsName);
  let workers = 0;
  const counted = () => void workers++;
  process.on('worker', counted);
  try {
    const r = await runInProcess(
      ['import', ...args, '--sandbox', '--json', '--no-journal', '--rejects', rejectsPath],
      envs[mode],
    );
    let report: Record<string, unknown>;
    try {
      report = withoutTiming(JSON.parse(r.stdout) as Record<string, unknown>);
    } catch {
      throw new Error(`memberctl import (${mode}) exited ${r.code} without its --json report: ${r.stderr.slice(-600)}`);
    }
    return { code: r.code, report, stderr: r.stderr, rejects: takeRejects(rejectsPath), workers };
  } finally {
    process.off('worker', counted);
  }
}

function takeRejects(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  rmSync(path);
  rmSync(recordPathOf(path), { force: true });
  return text;
}

function withoutTiming(report: Record<string, unknown>): Record<string, unknown> {
  const { startedAt, finishedAt, durationMs, concurrency, ...rest } = report;
  return rest;
}

describe('a CSV parsed in the worker thread gives what the main thread gives', () => {
  it.each(cases)('$name', async ({ args, code, rejects }) => {
    const worker = await importWith('always', args, rejects);
    const main = await importWith('never', args, rejects);
    expect(worker.workers).toBe(1);
    expect(main.workers).toBe(0);
    expect(main.code).toBe(code);
    const { workers: _w, ...fromWorker } = worker;
    const { workers: _m, ...fromMain } = main;
    expect(fromWorker).toEqual(fromMain);
  });

  it('the tricky file: every record in one bucket, the bad ones in the rejects file with their lines', async () => {
    const { report, rejects, workers } = await importWith('always', [tricky]);
    expect(workers).toBe(1);
    expect(report).toMatchObject({ rows: 15, invalid: 6, importedCount: 9, rejected: 0, failed: 0 });
    const lines = rejects!
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { line: number }).line);
    // m6 (bad values), m7 and m8 (other widths), m10 and m11 (not UTF-8), m13 (latin1)
    expect(lines).toEqual([11, 12, 13, 15, 16, 20]);
  });

  it('short rows: refused by default, padded with --pad-short-rows and counted; a refused row goes to rejects as written', async () => {
    const refused = await importWith('always', [widths], 'rejects.csv');
    expect(refused.workers).toBe(1);
    expect(refused.report).toMatchObject({ rows: 6, invalid: 5, importedCount: 1 });
    expect(refused.report).not.toHaveProperty('paddedRows');
    const written = parse(refused.rejects!, { relax_column_count: true }) as string[][];
    expect(written.map((cells) => cells.slice(0, -2))).toEqual([
      ['memberId', 'isActive', 'createdAt', 'email', 'firstName'],
      ['w2', 'true', '2024-01-05T09:00:00Z', 'w2@example.com'],
      ['w3', 'true', '2024-01-05T09:00:00Z', 'Smith, Ann'],
      ['w4', 'true', '2024-01-05T09:00:00Z', 'w4@example.com', 'Smith', ' Ann'],
      ['w5', 'true', '2024-01-05T09:00:00Z', 'w5@example.com', 'Say "hi"\r\nthere', 'extra'],
      ['w6', 'true', '2024-01-05T09:00:00Z', 'w6@example.com\nsecond line'],
    ]);
    expect(written[1]!.slice(-2)).toEqual([
      'invalid',
      expect.stringMatching(/^the row has 4 cells but the header has 5 — /),
    ]);
    const padded = await importWith('always', [widths, '--pad-short-rows']);
    expect(padded.workers).toBe(1);
    // w2, w3 and w6 padded and imported (the API takes any text as an e-mail address: "Smith, Ann" is what the user
    // opted into); w4, w5 too long
    expect(padded.report).toMatchObject({ rows: 6, paddedRows: 3, invalid: 2, importedCount: 4 });
  });
});

describe('MEMBERCTL_CSV_WORKER, read by the command line into the request', () => {
  it('always and never as written; unset, empty or auto leave the choice to the file size; anything else is refused', () => {
    const choice = (env: NodeJS.ProcessEnv) => inputOptionsFrom('members.csv', {}, env).csvWorker;
    expect(choice({ MEMBERCTL_CSV_WORKER: 'always' })).toBe('always');
    expect(choice({ MEMBERCTL_CSV_WORKER: 'never' })).toBe('never');
    expect(choice({})).toBe('auto');
    expect(choice({ MEMBERCTL_CSV_WORKER: '' })).toBe('auto');
    expect(choice({ MEMBERCTL_CSV_WORKER: 'auto' })).toBe('auto');
    expect(() => choice({ MEMBERCTL_CSV_WORKER: 'sometimes' })).toThrow(/always, never or auto/);
  });
});
