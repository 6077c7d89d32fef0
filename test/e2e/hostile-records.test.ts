/**
 * Hostile records are just records: one nested 2,000 levels deep (JSON, NDJSON, a json-typed CSV cell) is invalid
 * with a reason and the rows around it are untouched; the sandbox answers it 400; a record past the size limit is
 * dropped as soon as it crosses the limit, so an endless record (a line that never ends) cannot hold the run.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { importBatch, member } from '../sandbox/helpers.js';
import { CLI, isolatedEnv, tempDir } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const DEPTH = 2000;
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const ok = (id: string) => JSON.stringify(member(id));
const deep = `{"memberId":"deep","isActive":true,"createdAt":"2024-05-01T12:00:00Z","customProperties":{"x":${nested(DEPTH)}}}`;

function files(dir: string): Record<string, string[]> {
  const ndjson = join(dir, 'deep.ndjson');
  writeFileSync(ndjson, [ok('a'), ok('b'), deep, ok('c')].join('\n') + '\n');
  const json = join(dir, 'deep.json');
  writeFileSync(json, `[${[ok('a'), ok('b'), deep, ok('c')].join(',\n')}]\n`);
  const csv = join(dir, 'deep.csv');
  const cell = (text: string) => `"${text.replaceAll('"', '""')}"`;
  writeFileSync(
    csv,
    [
      'memberId,isActive,createdAt,Blob',
      'a,true,2024-05-01,',
      'b,true,2024-05-01,[1]',
      `deep,true,2024-05-01,${cell(nested(DEPTH))}`,
      'c,true,2024-05-01,',
    ].join('\n') + '\n',
  );
  const map = join(dir, 'map.json');
  writeFileSync(map, JSON.stringify({ columns: { Blob: { field: 'customProperties.blob', type: 'json' } } }));
  return { [ndjson]: [], [json]: [], [csv]: ['--map', map] };
}

describe('a record nested 2,000 levels deep', () => {
  it('is invalid with a reason in validate and import; the rows before and after are untouched', async () => {
    const dir = tempDir();
    for (const [file, extra] of Object.entries(files(dir))) {
      const validated = await runInProcess(['validate', file, ...extra, '--json'], isolatedEnv());
      expect(validated.stderr, file).not.toMatch(/call stack|internal error/);
      expect(validated.code, file).toBe(3);
      const report = JSON.parse(validated.stdout);
      expect(report).toMatchObject({ rows: 4, valid: 3, invalid: 1 });
      expect(JSON.stringify(report.invalidRecords[0])).toMatch(/nested deeper than 64 levels/);
      expect(report.invalidRecords[0].record).toBe(3);

      const imported = await runInProcess(
        ['import', file, ...extra, '--sandbox', '--json', '--no-journal'],
        isolatedEnv(),
      );
      expect(imported.stderr, file).not.toMatch(/call stack|internal error/);
      expect(imported.code, file).toBe(3);
      expect(JSON.parse(imported.stdout)).toMatchObject({ rows: 4, invalid: 1, importedCount: 3, failed: 0 });
    }
  });
});

describe('the sandbox and a deep record', () => {
  let sandbox: SandboxHandle | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('answers 400 naming the field, not 500', async () => {
    sandbox = await startSandbox({ port: 0 });
    const body = `[${ok('a')},${deep}]`;
    const reply = await importBatch(sandbox, body);
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.json.details)).toMatch(/customProperties\.x.*nested deeper than 64 levels/);
  });
});

describe('a record past the size limit', () => {
  it('an NDJSON line that never ends (stdin left open) with --limit 1 ends, naming the limit', async () => {
    const child = spawn(process.execPath, [CLI, 'validate', '-', '--format', 'ndjson', '--limit', '1', '--json'], {
      env: isolatedEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stdin.on('error', () => undefined);
    const mb = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 17; i++) child.stdin.write(mb);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.destroy();
    expect(code).toBe(3);
    expect(stdout).toContain('larger than 16 MB');
  }, 60_000);

  it('a JSON element that never ends is reported once it crosses the limit, while the input is still open', async () => {
    const child = spawn(process.execPath, [CLI, 'validate', '-', '--format', 'json', '--limit', '2', '--json'], {
      env: isolatedEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stdin.on('error', () => undefined);
    child.stdin.write(`[${ok('a')},{"memberId":"`);
    const mb = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 17; i++) child.stdin.write(mb);
    // stdin stays open: the run must end on its own
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.destroy();
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ rows: 2, valid: 1, invalid: 1 });
    expect(stdout).toContain('larger than 16 MB');
  }, 60_000);
});
