/**
 * Bad input as the command line shows it (run in-process): exit 2, stdout empty (or one JSON object with --json), stderr one line naming
 * the file and line plus a hint, never a stack trace. Each kind of bad input (empty, truncated, 16 MB records,
 * workbooks, unknown columns, bad flags…) is checked in-process in test/core/validate-bad-input.test.ts.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, type RunResult } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const env = isolatedEnv();
const validate = (...args: string[]) => runInProcess(['validate', ...args], env);

function expectNoStack(r: RunResult): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain('internal error');
}

/** Exit 2, stdout empty, stderr = "error: ..." naming the file (and a line when asked) + at most a hint line. */
function expectFatal(r: RunResult, file: string, pattern: RegExp): void {
  expectNoStack(r);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(pattern);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
}

describe('validate on bad input', () => {
  it('an empty file: exit 2, nothing on stdout, one error line and a hint on stderr', async () => {
    expectFatal(await validate('fixtures/invalid/empty.csv'), 'fixtures/invalid/empty.csv', /empty/i);
  });

  it('a truncated JSON array: a clear error with the line; with --json stdout stays one JSON object', async () => {
    expectFatal(
      await validate('fixtures/invalid/truncated.json'),
      'fixtures/invalid/truncated.json',
      /line 3: .*truncated/,
    );
    const r = await validate('fixtures/invalid/truncated.json', '--json');
    expect(r.code).toBe(2);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      file: 'fixtures/invalid/truncated.json',
      invalidRecords: [],
      rows: 1,
      valid: 1,
      invalid: 0,
      error: { code: expect.any(String), message: expect.stringContaining('line 3') },
    });
    expect(r.stderr).toMatch(/^error: fixtures\/invalid\/truncated\.json line 3/);
  });

  it('--json says the --output and --rejects asked for were not written (the files from before stay)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-cut-'));
    try {
      const [output, rejects] = [join(dir, 'items.ndjson'), join(dir, 'rejects.ndjson')];
      const r = await validate('fixtures/invalid/truncated.json', '--json', '--output', output, '--rejects', rejects);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, outputWritten: false, rejectsWritten: false });
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the human output says on stderr, in one line, that --output and --rejects were not replaced (as import says it)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-cut-'));
    try {
      const [output, rejects] = [join(dir, 'items.ndjson'), join(dir, 'rejects.ndjson')];
      await writeFile(output, 'yesterday\n');
      await writeFile(rejects, 'yesterday\n');
      const r = await validate('fixtures/invalid/truncated.json', '--output', output, '--rejects', rejects, '--force');
      expectNoStack(r);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(
        `Not replaced: ${output}, ${rejects} (the run ended before its valid items and rejects were complete; files from before stay as they were)`,
      );
      expect(lines[1]).toMatch(/^error: fixtures\/invalid\/truncated\.json line 3/);
      expect(lines[2]).toMatch(/^hint: /);
      expect(await readFile(output, 'utf8')).toBe('yesterday\n');
      expect(await readFile(rejects, 'utf8')).toBe('yesterday\n');
      // only what was asked for is named; a failure before the outputs were opened names none
      const one = await validate('fixtures/invalid/truncated.json', '--rejects', rejects, '--force');
      expect(one.stderr.split('\n')[0]).toBe(
        `Not replaced: ${rejects} (the run ended before its rejects were complete; a file from before stays as it was)`,
      );
      const none = await validate('fixtures/invalid/empty.csv', '--output', output, '--force');
      expect(none.stderr).not.toContain('Not replaced');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with --log-format json the line is a JSON log line like the error after it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memberctl-validate-cut-'));
    try {
      const output = join(dir, 'items.ndjson');
      const r = await validate('fixtures/invalid/truncated.json', '--output', output, '--log-format', 'json');
      expect(r.code).toBe(2);
      const events = r.stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; message?: string });
      expect(events.map((e) => e.event)).toEqual(['message', 'error', 'finished']);
      expect(events[0]?.message).toMatch(new RegExp(`^Not replaced: ${output} `));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a bad --show', async () => {
    expectFatal(await validate('fixtures/invalid/mixed.csv', '--show', 'all'), '--show', /whole number/);
  });
});
