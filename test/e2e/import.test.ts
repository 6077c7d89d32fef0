/**
 * `memberctl import` end to end against a sandbox on loopback: the whole command line in-process
 * (test/cli/run-in-process.ts); Ctrl-C (a signal to a process) on the built CLI spawned (FORCE_COLOR=0).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum, isolatedEnv, JSON_KEYS, membersCsv, spawnCli, tempDir, until } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

async function target(options: Parameters<typeof startSandbox>[0] = {}) {
  box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true, ...options });
  return isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
}

let dir: string;
beforeAll(() => {
  dir = tempDir();
});

describe('memberctl import', { timeout: 120_000 }, () => {
  it('imports into a local sandbox with --sandbox and says so', async () => {
    const file = membersCsv(dir, 20, undefined, 'sandbox.csv');
    const run = await runInProcess(['import', file, '--sandbox'], isolatedEnv());
    // one banner, on stdout with the summary; no URL of a server that is gone once the run ends
    expect(run.stdout).toContain(
      `Import of ${file} to a local sandbox (started for this run; its members are discarded)`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/Importing|127\.0\.0\.1/);
    expect(run.stdout).toMatch(/imported\s+20/);
    expect(run.stdout).toContain('Done: every record imported or updated.');
    expect(run.code).toBe(0);
  });

  it('--json prints exactly the documented object; --report writes it with mode 0600', async () => {
    const env = await target();
    box!.erase('m3');
    const file = membersCsv(
      dir,
      50,
      (r) => (r === 7 ? 'm7,m7@example.com,Seven,maybe,2024-01-05T09:00:00Z' : undefined),
      'json.csv',
    );
    const report = join(dir, 'report.json');
    const run = await runInProcess(['import', file, '--json', '--report', report, '--batch-size', '10'], env);
    expect(run.code).toBe(3);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    // how the run ended, when, what and where first, then the counts (docs/reference/import.md)
    expect(Object.keys(result)).toEqual([
      'exitCode',
      'startedAt',
      'finishedAt',
      'input',
      'target',
      'error',
      ...JSON_KEYS,
    ]);
    expect(result).toMatchObject({
      exitCode: run.code,
      input: file,
      error: null,
      rows: 50,
      invalid: 1,
      importedCount: 48,
      updatedCount: 0,
      rejected: 0,
      failed: 0,
      batches: 5,
    });
    expect([typeof result.startedAt, typeof result.finishedAt, typeof result.target]).toEqual([
      'string',
      'string',
      'string',
    ]);
    expect(result).not.toHaveProperty('nextCommand'); // every record has its answer: nothing to send again
    expect(result.skipped).toBe(1);
    expect(result.skippedExamples).toEqual([{ memberId: 'm3', reason: 'member erased', record: 3, line: 4 }]);
    expect(bucketSum(result)).toBe(50);
    // the report is the very same object
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual(result);
    expect(statSync(report).mode & 0o777).toBe(0o600);
  });

  it('reports the concurrency: adaptive up to --max-concurrency by default, fixed with --concurrency, not both', async () => {
    const env = await target();
    const file = membersCsv(dir, 60, undefined, 'concurrency.csv');
    const adaptive = JSON.parse(
      (await runInProcess(['import', file, '--json', '--batch-size', '5', '--max-concurrency', '3'], env)).stdout,
    );
    expect(adaptive.importedCount).toBe(60);
    expect(adaptive.concurrency.max).toBeLessThanOrEqual(3);
    expect(adaptive.concurrency.final).toBeGreaterThanOrEqual(1);
    const fixed = JSON.parse(
      (await runInProcess(['import', file, '--json', '--batch-size', '5', '--concurrency', '2'], env)).stdout,
    );
    expect(fixed.concurrency).toEqual({ final: 2, max: 2 });
    const both = await runInProcess(['import', file, '--concurrency', '2', '--max-concurrency', '8'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--concurrency and --max-concurrency cannot be used together');
  });

  it('--limit sends only the first N records', async () => {
    const env = await target();
    const file = membersCsv(dir, 100, undefined, 'limit.csv');
    const run = await runInProcess(['import', file, '--limit', '7', '--json'], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 7, importedCount: 7 });
    expect(box!.memberCount()).toBe(7);
    expect(run.code).toBe(0);
  });

  it('round-trips --rejects: fix the CSV it wrote and feed it back as it is', async () => {
    const env = await target({ faults: { rejectMemberIds: ['m9'] } });
    const bad = (r: number) =>
      r === 4
        ? 'm4,m4@example.com,Four,maybe,2024-01-05T09:00:00Z'
        : r === 6
          ? 'm6,m6@example.com,Six,true,yesterday'
          : undefined;
    const file = membersCsv(dir, 12, bad, 'round.csv');
    const rejects = join(dir, 'fix-me.csv');
    const first = await runInProcess(['import', file, '--rejects', rejects, '--batch-size', '5'], env);
    expect(first.code).toBe(3);
    expect(first.stdout).toMatch(/invalid\s+2/);
    expect(first.stdout).toMatch(/rejected\s+1/);
    const written = readFileSync(rejects, 'utf8').trim().split('\n');
    expect(written[0]).toBe(`${HEADER_WITH_STAGE}`);
    expect(written).toHaveLength(4);
    expect(written.find((line) => line.startsWith('m9,'))).toContain(',rejected,');
    expect(statSync(rejects).mode & 0o777).toBe(0o600);
    // the user fixes the two invalid rows; m9 is no longer refused
    writeFileSync(
      rejects,
      readFileSync(rejects, 'utf8').replace(',maybe,', ',true,').replace(',yesterday,', ',2024-01-06T00:00:00Z,'),
    );
    box!.setFaults({ rejectMemberIds: [] });
    const second = await runInProcess(['import', rejects, '--json'], env);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 3, invalid: 0, importedCount: 3, rejected: 0, failed: 0 });
    expect(second.code).toBe(0);
    expect(box!.memberCount()).toBe(12);
    expect(box!.getMember('m4')?.isActive).toBe(true);
  });

  it('stops at once on 401 with exit 5 and a token hint; nothing further is sent', async () => {
    const env = await target();
    const file = membersCsv(dir, 3000, undefined, 'auth.csv');
    const run = await runInProcess(['import', file, '--json', '--batch-size', '50', '--concurrency', '2'], {
      ...env,
      MEMBERCTL_TOKEN: 'expired.or.wrong',
    });
    expect(run.code).toBe(5);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(result)).toBe(result.rows);
    expect(result.failed).toBe(result.rows);
    expect(run.stderr).toContain('refused the credentials');
    expect(run.stderr).toContain('MEMBERCTL_TOKEN');
    expect(box!.stats().requests).toBeLessThanOrEqual(2);
    expect(run.stdout + run.stderr).not.toContain('expired.or.wrong');
  });

  it('refuses plain http:// to a host other than loopback, and says what to do without a base URL', async () => {
    const file = membersCsv(dir, 2, undefined, 'http.csv');
    const insecure = await runInProcess(
      ['import', file, '--base-url', 'http://members.example.com'],
      isolatedEnv({ MEMBERCTL_TOKEN: 'abc.def.ghi' }),
    );
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toContain('refusing to send a bearer token over plain http://');
    expect(insecure.stderr).not.toContain('abc.def.ghi');
    const none = await runInProcess(['import', file], isolatedEnv({ MEMBERCTL_TOKEN: 'abc.def.ghi' }));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--sandbox');
  });

  it('on Ctrl-C lets requests in flight settle, prints a summary that adds up, exits 4', async () => {
    const env = await target({ faults: { latencyMs: 400 } });
    const file = membersCsv(dir, 5000, undefined, 'interrupt.csv');
    const running = spawnCli(['import', file, '--json', '--batch-size', '100', '--concurrency', '2'], env);
    await until(() => box!.stats().inFlight > 0, 'the first request to arrive');
    running.child.kill('SIGINT');
    const run = await running.result;
    expect(run.code).toBe(4);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(result)).toBe(result.rows);
    expect(result.failed as number).toBeGreaterThan(0);
    // what was in flight was answered and counted, and is in the sandbox
    expect(result.importedCount as number).toBeGreaterThan(0);
    expect(box!.memberCount()).toBe(result.importedCount);
    expect(run.stderr).toContain('stopping');
    // a script gets what the summary would tell a person: the exact command that sends the rest
    expect(result).toMatchObject({
      exitCode: 4,
      nextCommand: `memberctl import ${file} --json --batch-size 100 --concurrency 2 --resume`,
    });
  });

  it('on a second Ctrl-C abandons requests in flight at once, still prints a summary that adds up, exits 4', async () => {
    const env = await target({ faults: { latencyMs: 60_000 } });
    const file = membersCsv(dir, 3000, undefined, 'interrupt-twice.csv');
    const running = spawnCli(
      ['import', file, '--json', '--batch-size', '100', '--concurrency', '2', '--grace', '60000'],
      env,
    );
    let stderr = '';
    running.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await until(() => box!.stats().inFlight > 0, 'the first request to arrive');
    running.child.kill('SIGINT');
    await until(() => stderr.includes('stopping'), 'the first Ctrl-C to be acknowledged');
    running.child.kill('SIGINT');
    // without the second Ctrl-C this would wait for the 60 s latency (and the test would time out)
    const run = await running.result;
    expect(run.code).toBe(4);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(bucketSum(result)).toBe(result.rows);
    expect(result.importedCount).toBe(0);
    expect(result.failed).toBe(result.rows);
    expect(run.stderr).toContain('stopping at once');
  });

  it('accounts for the records before an input that turns unreadable midway, then reports it with exit 2', async () => {
    const env = await target();
    const file = join(dir, 'truncated.json');
    writeFileSync(
      file,
      '[\n{"memberId":"t-1","isActive":true,"createdAt":"2024-01-05T09:00:00Z"},\n{"memberId":"t-2","isActive":tr',
    );
    const run = await runInProcess(['import', file, '--json'], env);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 1, importedCount: 1, failed: 0 });
    expect(box!.getMember('t-1')).toBeDefined();
    expect(run.stderr).toMatch(/error: .*truncated\.json line 3/);
  });

  it('never shows the token: stdout, stderr, report, rejects, JSON logs', async () => {
    const env = await target({ faults: { rejectMemberIds: ['m2'], failNext: [{ status: 503 }] } });
    const token = box!.memberToken;
    const file = membersCsv(
      dir,
      30,
      (r) => (r === 5 ? 'm5,m5@example.com,Five,maybe,2024-01-05T09:00:00Z' : undefined),
      'secret.csv',
    );
    const outputs: string[] = [];
    for (const [i, mode] of [[], ['--json'], ['--quiet'], ['--log-format', 'json']].entries()) {
      const report = join(dir, `secret-report-${i}.json`);
      const rejects = join(dir, `secret-rejects-${i}.ndjson`);
      const run = await runInProcess(
        ['import', file, ...mode, '--report', report, '--rejects', rejects, '--batch-size', '10'],
        env,
      );
      expect(run.code).toBe(3);
      outputs.push(run.stdout, run.stderr, readFileSync(report, 'utf8'), readFileSync(rejects, 'utf8'));
    }
    const failed = await runInProcess(['import', file, '--log-format', 'json'], {
      ...env,
      MEMBERCTL_TOKEN: `${token}x`,
    });
    expect(failed.code).toBe(5);
    outputs.push(failed.stdout, failed.stderr);
    for (const text of outputs) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split('.')[2]);
    }
    expect(outputs.join('\n')).toContain('"event":"finished"');
  });
});

const HEADER_WITH_STAGE = 'memberId,email,firstName,isActive,createdAt,stage,error';
