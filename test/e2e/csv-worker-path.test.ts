/**
 * The CSV parsing worker end to end. A file of 2 MB or more is parsed in a worker thread; CI's files are small, so
 * MEMBERCTL_CSV_WORKER=always forces it here, and each tricky file is imported both ways: the --json report (timing
 * aside), the rejects file, stderr and the exit code must be the same. A preloaded module (NODE_OPTIONS --import,
 * which worker threads run too) marks each worker thread started, so the test knows which path each run took.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CLI, HEADER, isolatedEnv, tempDir } from './import-helper.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKER = join(dir, 'worker-marker.mjs');
writeFileSync(
  MARKER,
  [
    "import { isMainThread } from 'node:worker_threads';",
    "import { appendFileSync } from 'node:fs';",
    "if (!isMainThread) appendFileSync(process.env.WORKER_MARK, 'worker\\n');",
  ].join('\n'),
);

const row = (r: number, name = `Name${r}`) => `m${r},m${r}@example.com,${name},true,2024-01-05T09:00:00Z`;
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** One UTF-8 file with most of what a CSV can hold: a BOM, every line end, quotes, blank lines, bad rows, no final line break. */
const tricky = file(
  'tricky.csv',
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

/** Runs the import in its own folder (the rejects file's relative name appears the same in both runs' messages). */
function importWith(
  mode: 'always' | 'never',
  name: string,
  args: string[],
  rejectsName = 'rejects.ndjson',
): Promise<Outcome> {
  const cwd = join(dir, `${mode}-${name.replace(/\W+/g, '-')}`);
  mkdirSync(cwd, { recursive: true });
  const mark = join(cwd, 'workers');
  const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: mode, NODE_OPTIONS: `--import ${MARKER}`, WORKER_MARK: mark });
  const child = spawn(
    process.execPath,
    [CLI, 'import', ...args, '--sandbox', '--json', '--no-journal', '--rejects', rejectsName],
    { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const rejects = join(cwd, rejectsName);
      // a run that printed no report fails the test with its stderr, at once (thrown here, it would be an
      // uncaught error and the test would wait for its timeout)
      let report: Record<string, unknown>;
      try {
        report = withoutTiming(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        reject(new Error(`memberctl import (${mode}) exited ${code} without its --json report: ${stderr.slice(-600)}`));
        return;
      }
      resolve({
        code,
        report,
        stderr,
        rejects: existsSync(rejects) ? readFileSync(rejects, 'utf8') : undefined,
        workers: existsSync(mark) ? readFileSync(mark, 'utf8').split('\n').filter(Boolean).length : 0,
      });
    });
  });
}

function withoutTiming(report: Record<string, unknown>): Record<string, unknown> {
  const { startedAt, finishedAt, durationMs, concurrency, ...rest } = report;
  return rest;
}

describe('a CSV parsed in the worker thread gives what the main thread gives', () => {
  it.each(cases)('$name', async ({ name, args, code, rejects }) => {
    const [worker, main] = await Promise.all([
      importWith('always', name, args, rejects),
      importWith('never', name, args, rejects),
    ]);
    expect(worker.workers).toBe(1);
    expect(main.workers).toBe(0);
    expect(main.code).toBe(code);
    const { workers: _w, ...fromWorker } = worker;
    const { workers: _m, ...fromMain } = main;
    expect(fromWorker).toEqual(fromMain);
  });

  it('a worker that fails is the run stopping: one error naming the way out (parsing on the main thread), exit 4, no hang', async () => {
    const failing = join(dir, 'failing-worker.mjs');
    writeFileSync(
      failing,
      "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) throw new Error('no worker today');\n",
    );
    const env = isolatedEnv({ MEMBERCTL_CSV_WORKER: 'always', NODE_OPTIONS: `--import ${failing}` });
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'import', tricky, '--sandbox', '--no-journal'], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/error: the CSV parsing worker failed while reading: no worker today/);
    expect(r.stderr).toMatch(/hint: .*MEMBERCTL_CSV_WORKER=never/);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('the tricky file: every record in one bucket, the bad ones in the rejects file with their lines', async () => {
    const { report, rejects } = await importWith('always', 'buckets', [tricky]);
    expect(report).toMatchObject({ rows: 15, invalid: 6, importedCount: 9, rejected: 0, failed: 0 });
    const lines = rejects!
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { line: number }).line);
    // m6 (bad values), m7 and m8 (other widths), m10 and m11 (not UTF-8), m13 (latin1)
    expect(lines).toEqual([11, 12, 13, 15, 16, 20]);
  });

  it('short rows: refused by default, padded with --pad-short-rows and counted; a refused row goes to rejects as written', async () => {
    const refused = await importWith('always', 'widths-refused', [widths], 'rejects.csv');
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
    const padded = await importWith('always', 'widths-padded', [widths, '--pad-short-rows']);
    // w2, w3 and w6 padded and imported (the API takes any text as an e-mail address: "Smith, Ann" is what the user
    // opted into); w4, w5 too long
    expect(padded.report).toMatchObject({ rows: 6, paddedRows: 3, invalid: 2, importedCount: 4 });
  });
});
