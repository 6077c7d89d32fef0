/**
 * What a process loads before any command runs: `--version` and a command's `--help` are built from the flag
 * definitions alone, so none of the libraries or the code that do the work is loaded (each command's X-run.ts is
 * imported by its action). And what an import of a CSV loads: not the workbook reader, the sandbox or undici's
 * index (its old generation kept their source for the whole run: issue 28). A loader hook in the spawned CLI lists
 * every module it loads. A process is what shows this: in-process, the modules are already in the worker's cache.
 * And what the CSV worker loads to encode rows: no zod (its isolate's share of the import's peak RSS, issue 28).
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { CLI, isolatedEnv, membersCsv, tempDir } from './import-helper.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every module the process loads, ESM or CommonJS, one URL or path a line on stderr, marked so.
const TRACER = join(dir, 'trace-modules.mjs');
writeFileSync(
  TRACER,
  `import Module, { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  "export async function load(url, context, next) { process.stderr.write('loaded: ' + url + '\\\\n'); return next(url, context); }"));
const load = Module._load;
Module._load = function (request, ...rest) { process.stderr.write('loaded: ' + request + '\\n'); return load.call(this, request, ...rest); };
`,
);

function modulesLoadedBy(args: string[]): { stdout: string; modules: string[] } {
  const run = spawnSync(process.execPath, ['--import', TRACER, CLI, ...args], { env: isolatedEnv(), encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const modules = run.stderr.split('\n').flatMap((line) => (line.startsWith('loaded: ') ? [line.slice(8)] : []));
  return { stdout: run.stdout, modules };
}

/** What only running a command needs: validation, the readers, the HTTP client, the state, the sandbox. */
const NOT_AT_START = [
  /node_modules\/(zod|undici|better-sqlite3|csv-parse|libphonenumber-js|i18n-iso-countries|iconv-lite|yauzl|saxes|cli-progress)\//,
  /dist\/cli\/commands\/[a-z-]+-run\.js$/,
  /dist\/(sandbox\/index|core\/import\/pipeline|core\/validate\/validate-file|core\/map-init\/map-init|schemas\/index)\.js$/,
];

describe('start-up', () => {
  it.each([[['--version']], [['--help']], [['subscribe', '--help']], [['config', 'check', '--help']]])(
    'memberctl %s loads none of what the commands run',
    (args) => {
      const { stdout, modules } = modulesLoadedBy(args);
      expect(stdout.length).toBeGreaterThan(0);
      expect(modules.some((url) => url.includes('commander'))).toBe(true); // the tracer saw the modules
      expect(modules.filter((url) => NOT_AT_START.some((pattern) => pattern.test(url)))).toEqual([]);
    },
  );
});

/** The modules a CSV import loads (the CSV worker's too: it inherits the tracer), against an in-process sandbox. */
async function modulesLoadedByImport(workerChoice: 'always' | 'never'): Promise<string[]> {
  const box = await startSandbox({ host: '127.0.0.1', port: 0 });
  try {
    const file = membersCsv(dir, 20, undefined, `members-${workerChoice}.csv`);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: box.memberToken, MEMBERCTL_CSV_WORKER: workerChoice });
    const child = spawn(process.execPath, ['--import', TRACER, CLI, 'import', file, '--base-url', box.url, '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ rows: 20, importedCount: 20 });
    return stderr.split('\n').flatMap((line) => (line.startsWith('loaded: ') ? [line.slice(8)] : []));
  } finally {
    await box.close();
  }
}

/**
 * What a CSV import does not use: the workbook reader and its libraries, the sandbox, undici's index and its web APIs,
 * and (its rows all plainly valid) the item's schemas: member.ts builds them, validate-item.ts at its first item.
 */
const NOT_FOR_A_CSV = [
  /dist\/schemas\/(index|member|push)\.js$/,
  /node_modules\/(yauzl|saxes)\//,
  /^(yauzl|saxes)$/,
  /dist\/io\/xlsx/,
  /dist\/sandbox\/(?!options\.js)/, // (its flags' defaults are part of the command line)
  /^undici$/,
  /node_modules\/undici\/index\.js$/,
  /^\.\/lib\/(web|mock|cache|interceptor)\//,
];

describe('a CSV import', () => {
  it.each([['always' as const], ['never' as const]])(
    "loads undici's pool but not its index, the workbook reader, the sandbox or the item's schemas (CSV worker: %s)",
    async (workerChoice) => {
      const modules = await modulesLoadedByImport(workerChoice);
      expect(modules).toContain('undici/lib/dispatcher/pool'); // the tracer saw the HTTP client load
      expect(modules.some((url) => url.endsWith('dist/io/csv-reader.js'))).toBe(true);
      expect(modules.filter((url) => NOT_FOR_A_CSV.some((pattern) => pattern.test(url)))).toEqual([]);
    },
  );
});

// The CSV worker alone, as the import starts it, handed the import's row encoder (import/row-encoder.ts): it
// parses a header and two rows, then encodes the next. Printed: how many replies carried encoded rows.
const WORKER_RUN = join(dir, 'run-csv-worker.mjs');
writeFileSync(
  WORKER_RUN,
  `import { Worker } from 'node:worker_threads';
const [workerUrl, encoderUrl, file] = process.argv.slice(2);
const worker = new Worker(new URL(workerUrl), { workerData: { file, delimiter: ',', padShortRows: false } });
const row = (id) => 'm' + id + ',true,2024-01-05T09:00:00Z\\n';
const messages = [
  { type: 'chunk', bytes: Buffer.from('memberId,isActive,createdAt\\n' + row(1) + row(2)) },
  { type: 'encode', encoder: { module: encoderUrl, options: { file, hashes: true }, everyChunk: true } },
  { type: 'chunk', bytes: Buffer.from(row(3) + row(4)) },
  { type: 'end' },
];
let replies = 0;
let encoded = 0;
worker.on('message', (reply) => {
  if (reply.type !== 'parsed') throw new Error(JSON.stringify(reply));
  if (reply.packed.encoded) encoded++;
  if (++replies === 3) {
    process.stdout.write(String(encoded));
    void worker.terminate();
  }
});
for (const message of messages) worker.postMessage(message);
`,
);

describe('the CSV worker', () => {
  it('loads no zod and nothing of the main thread to encode the rows of a plain CSV', () => {
    const dist = new URL('../../dist/', import.meta.url);
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        TRACER,
        WORKER_RUN,
        new URL('io/csv-worker.js', dist).href,
        new URL('core/import/row-encoder.js', dist).href,
        join(dir, 'members.csv'),
      ],
      { env: isolatedEnv(), encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(Number(run.stdout)).toBeGreaterThan(0); // the rows after the encoder loaded came encoded
    const modules = run.stderr.split('\n').flatMap((line) => (line.startsWith('loaded: ') ? [line.slice(8)] : []));
    expect(modules.some((url) => url.endsWith('dist/core/import/row-encoder.js'))).toBe(true);
    const unused = [
      /node_modules\/zod\//,
      /^zod$/,
      /dist\/schemas\/(index|member|push)\.js$/,
      /dist\/core\/mapping\/(index|csv-mapper|mapping-file|mapping-schema|validate-item|json-mapper)\.js$/,
      /dist\/version\.js$/,
    ];
    expect(modules.filter((url) => unused.some((pattern) => pattern.test(url)))).toEqual([]);
  });
});
