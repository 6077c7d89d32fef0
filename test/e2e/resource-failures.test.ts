/**
 * A full disk or a file-size limit on an output (issue 15 item 4) is an error, not a bug: named, the run stops
 * cleanly with a summary that adds up, exit 4, and --resume afterwards is exact. The fault is real: the CLI runs
 * under `ulimit -f` (EFBIG: Node ignores SIGXFSZ, so the write fails instead of killing the process).
 */
import { writeOutputFile } from '../../src/io/output-file.js';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum, CLI, HEADER, isolatedEnv, tempDir } from './import-helper.js';
import type { RunResult } from './config-cli-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

/** The CLI under a file-size limit of `kib` KiB (bash's ulimit -f counts 1024-byte blocks). */
function runLimited(kib: number, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('bash', ['-c', `ulimit -f ${kib}; exec ${quoted}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** 3,000 rows: every third one invalid, with a long cell so the rejects file grows past the limit. */
function bigInvalidFile(dir: string): { file: string; rows: number; valid: number } {
  const lines = [HEADER];
  let valid = 0;
  for (let r = 1; r <= 3000; r++) {
    if (r % 3 === 0) lines.push(`m${r},m${r}@example.com,${'x'.repeat(300)},maybe,2024-01-05T09:00:00Z`);
    else lines.push(`m${r},m${r}@example.com,Name${r},true,2024-01-05T09:00:00Z`), valid++;
  }
  const file = join(dir, 'members.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, rows: 3000, valid };
}

describe('resource failures on outputs', { timeout: 120_000 }, () => {
  it('EFBIG on the rejects file: named, summary adds up, exit 4, rejects file not half-written; --resume is exact', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
    const dir = tempDir();
    const { file, rows, valid } = bigInvalidFile(dir);
    const rejects = join(dir, 'rejects.csv');
    const report = join(dir, 'report.json');
    const args = ['import', file, '--rejects', rejects, '--report', report, '--batch-size', '50', '--concurrency', '1'];
    const run = await runLimited(200, [...args, '--json'], env);
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(run.stderr).toMatch(new RegExp(`rejects file ${rejects}.*EFBIG`));
    expect(run.stderr).toContain('incomplete');
    expect(run.code).toBe(4);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(summary)).toBe(summary.rows);
    expect(summary.failed as number).toBeGreaterThan(0);
    expect(existsSync(rejects)).toBe(false); // never half a file
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ exitCode: 4, error: { code: 'output-failed' } });
    // --json prints what the report holds (one object), with the command the summary would tell a person to run
    expect(summary).toEqual(JSON.parse(readFileSync(report, 'utf8')));
    expect(summary).toMatchObject({
      exitCode: 4,
      input: file,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      nextCommand: expect.stringMatching(/^memberctl import .* --resume$/),
    });

    const resumed = await runInProcess([...args, '--resume', '--json'], env);
    expect(resumed.code).toBe(3);
    const whole = JSON.parse(resumed.stdout) as Record<string, unknown>;
    expect(whole).toMatchObject({ rows, invalid: rows - valid, failed: 0 });
    expect(bucketSum(whole)).toBe(rows);
    expect(box.memberCount()).toBe(valid);
    // the rejects file is whole now: every invalid row, once
    expect(readFileSync(rejects, 'utf8').trimEnd().split('\n')).toHaveLength(1 + rows - valid);
  });

  it('EFBIG on the journal: named, summary adds up, exit 4; --resume is exact', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
    const dir = tempDir();
    const lines = [HEADER];
    for (let r = 1; r <= 2000; r++) lines.push(`m${r},m${r}@example.com,N${r},true,2024-01-05T09:00:00Z`);
    const file = join(dir, 'valid.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // the input is 130 KB and only read; the journal (one short line per batch of 1) passes 8 KiB midway
    const args = ['import', file, '--batch-size', '1', '--concurrency', '2'];
    const run = await runLimited(8, [...args, '--json'], env);
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(run.stderr).toMatch(/journal .*valid\.csv\.memberctl-journal.*EFBIG/);
    expect(run.code).toBe(4);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(summary)).toBe(summary.rows);
    const resumed = await runInProcess([...args, '--resume', '--json', '--batch-size', '200'], env);
    expect(resumed.code).toBe(0);
    const whole = JSON.parse(resumed.stdout) as Record<string, unknown>;
    expect(whole).toMatchObject({ rows: 2000, failed: 0 });
    expect(bucketSum(whole)).toBe(2000);
    expect(box.memberCount()).toBe(2000);
  });

  it('a full state (SQLite) under the limit: named as the state, summary adds up, exit 4; --resume is exact', async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
    const dir = tempDir();
    const lines = [HEADER];
    for (let r = 1; r <= 4000; r++) lines.push(`m${r},m${r}@example.com,N${r},true,2024-01-05T09:00:00Z`);
    const file = join(dir, 'sync.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const state = join(dir, 'sync.state');
    // the journal (one line per batch of 100) stays small; the state (a row per member) passes 120 KiB
    const args = ['import', file, '--state', state, '--batch-size', '100', '--concurrency', '1'];
    const run = await runLimited(120, [...args, '--json'], env);
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(run.stderr).toMatch(/writing the state file .*sync\.state failed: SQLITE_/);
    expect(run.code).toBe(4);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(summary)).toBe(summary.rows);
    const resumed = await runInProcess([...args, '--resume', '--json'], env);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 4000, failed: 0, exitCode: 0 });
    expect(JSON.parse(resumed.stdout)).not.toHaveProperty('nextCommand');
    expect(box.memberCount()).toBe(4000);
  });

  it("EFBIG on the report: the summary is still printed, then the error; last night's report is removed; exit 4, as the log's finished line says", async () => {
    box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
    const env = isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
    const dir = tempDir();
    const file = join(dir, 'few.csv');
    writeFileSync(file, `${HEADER}\nm1,m1@example.com,N,true,2024-01-05T09:00:00Z\n`);
    const report = join(dir, 'last-run.json');
    await writeOutputFile(report, 'report', '{"exitCode":0,"note":"last night"}'); // as last night's run wrote it
    // ulimit -f 0: no file may grow at all (the report's temp file is created empty, then its write fails)
    const run = await runLimited(0, ['import', file, '--no-journal', '--report', report, '--log-format', 'json'], env);
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(run.stdout).toContain('imported  1');
    expect(run.stderr).toContain(`writing the report file ${report} failed: EFBIG`);
    expect(run.code).toBe(4);
    expect(existsSync(report)).toBe(false);
    expect(box.memberCount()).toBe(1);
    // every record imported, but the run did not do all it was asked: the finished line says the exit code it ends with
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.event === 'finished')).toMatchObject({ level: 'error', exitCode: 4 });
  });

  it("a full disk on the sandbox's store file (--sandbox-data), written as it closes: named after the summary, exit 4, in the result", async () => {
    const dir = tempDir();
    const file = join(dir, 'few.csv');
    writeFileSync(file, `${HEADER}\nm1,m1@example.com,N,true,2024-01-05T09:00:00Z\n`);
    const data = join(dir, 'sandbox.json');
    // (--json's object is the one --report writes: the report itself cannot be written under this limit)
    const run = await runLimited(
      0,
      ['import', file, '--sandbox', '--sandbox-data', data, '--no-journal', '--retries', '0', '--json'],
      isolatedEnv(),
    );
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(run.stderr).toContain(`writing the sandbox data file ${data} failed: EFBIG`);
    expect(run.code).toBe(4);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(summary)).toBe(1);
    expect(summary).toMatchObject({
      exitCode: 4,
      error: { code: 'output-failed', details: { kind: 'sandbox data', file: data } },
    });
  });
});
