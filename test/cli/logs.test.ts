/**
 * `--log-format json` on a real import against the sandbox, with a retry and a rejected record on the way:
 * every stderr line is a JSON object, the events a cron log needs are there, and neither the token nor member
 * data (beyond memberIds and record numbers) appears anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { configDir, isolatedEnv } from '../e2e/config-cli-helper.js';
import { membersCsv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

type LogLine = { time: string; level: string; event: string } & Record<string, unknown>;

function parseLines(stderr: string): LogLine[] {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => {
    const parsed = JSON.parse(line) as LogLine; // throws, failing the test, on any non-JSON line
    expect(parsed).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: expect.stringMatching(/^(info|warn|error)$/),
      event: expect.any(String),
    });
    return parsed;
  });
}

describe('--log-format json', () => {
  it('logs an import as JSON lines: started, confirmed batches, a retry, a rejection, finished', async () => {
    sandbox.reset();
    sandbox.setFaults({ failNext: [{ status: 503, retryAfter: 0 }], rejectMemberIds: ['m7'] });
    const file = membersCsv(tempDir(), 25);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: sandbox.memberToken });
    const { code, stdout, stderr } = await runInProcess(
      [
        'import',
        file,
        '--base-url',
        sandbox.url,
        '--batch-size',
        '10',
        '--concurrency',
        '1',
        '--log-format',
        'json',
        '--json',
      ],
      env,
    );
    expect(code).toBe(3); // one record rejected, none failed
    const lines = parseLines(stderr);
    const events = lines.map((line) => line.event);
    expect(events[0]).toBe('run-started');
    expect(events.at(-1)).toBe('finished');
    expect(lines[0]).toMatchObject({
      command: 'import',
      batchSize: 10,
      concurrency: 1,
      input: file,
      profile: null,
      target: expect.stringContaining('127.0.0.1'),
      version: expect.stringMatching(/^\d+\.\d+/),
      host: expect.any(String),
    });
    // one run id and the pid on every line
    expect(new Set(lines.map((line) => line.runId)).size).toBe(1);
    expect(lines.every((line) => typeof line.runId === 'string' && typeof line.pid === 'number')).toBe(true);
    expect(lines.find((line) => line.event === 'retry')).toMatchObject({
      level: 'warn',
      delayMs: expect.any(Number),
      reason: expect.stringContaining('503'),
    });
    expect(lines.filter((line) => line.event === 'batch-confirmed').length).toBeGreaterThanOrEqual(3);
    expect(lines.find((line) => line.event === 'records-rejected')).toMatchObject({ records: [7] });
    expect(lines.at(-1)).toMatchObject({
      level: 'warn',
      exitCode: 3,
      rows: 25,
      importedCount: 24,
      rejected: 1,
      failed: 0,
      skipped: 0,
    });
    expect(lines.at(-1)).not.toHaveProperty('nextCommand'); // nothing left that running again would send

    const report = JSON.parse(stdout);
    expect(report.rows).toBe(25);
    for (const text of [stdout, stderr]) expect(text).not.toContain(sandbox.memberToken);
    // member data stays out of the log: no e-mail address or name from the file
    expect(stderr).not.toMatch(/@example\.com|Name\d/);
  });

  it('the finished line of a run that left records unconfirmed carries nextCommand, as --json does', async () => {
    sandbox.reset();
    sandbox.setFaults({ failNext: [{ status: 503, retryAfter: 0 }] });
    const file = membersCsv(tempDir(), 25);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: sandbox.memberToken });
    const { code, stdout, stderr } = await runInProcess(
      [
        'import',
        file,
        '--base-url',
        sandbox.url,
        '--batch-size',
        '10',
        '--concurrency',
        '1',
        '--retries',
        '0',
        '--log-format',
        'json',
        '--json',
      ],
      env,
    );
    expect(code).toBe(4);
    const result = JSON.parse(stdout) as { failed: number; nextCommand: string };
    expect(result.failed).toBe(10);
    expect(result.nextCommand).toMatch(/^memberctl import .* --resume$/);
    expect(parseLines(stderr).at(-1)).toMatchObject({
      event: 'finished',
      level: 'error',
      exitCode: 4,
      failed: 10,
      nextCommand: result.nextCommand,
    });
  });

  it('takes the base URL and token file from a profile, and never logs the token', async () => {
    sandbox.reset();
    sandbox.setFaults({ failNext: [], rejectMemberIds: [] });
    const { xdg } = configDir(
      { profiles: { sbx: { baseUrl: sandbox.url, tokenFile: 'sbx.token', batchSize: 4 } } },
      {
        'sbx.token': { text: sandbox.memberToken },
      },
    );
    const file = membersCsv(tempDir(), 9);
    const { code, stderr } = await runInProcess(
      ['--profile', 'sbx', '--log-format', 'json', 'import', file, '--quiet'],
      isolatedEnv({ XDG_CONFIG_HOME: xdg }),
    );
    expect(code).toBe(0);
    const lines = parseLines(stderr);
    expect(lines[0]).toMatchObject({ event: 'run-started', batchSize: 4 });
    expect(lines.filter((line) => line.event === 'batch-confirmed')).toHaveLength(3);
    expect(lines.at(-1)).toMatchObject({ event: 'finished', level: 'info', rows: 9, importedCount: 9 });
    expect(stderr).not.toContain(sandbox.memberToken);
    expect(sandbox.memberCount()).toBe(9);
  });

  it('logs subscribe as JSON lines too: warnings, the retry after a 503, no push token', async () => {
    sandbox.reset();
    sandbox.setFaults({ failNext: [{ endpoint: 'push', status: 503, retryAfter: 0 }], rejectMemberIds: [] });
    const env = isolatedEnv({ MEMBERCTL_PUSH_TOKEN: sandbox.pushToken });
    const args = [
      'subscribe',
      'C-1001',
      '--token-handle',
      'a1b2c3',
      '--platform',
      'fcm',
      '--installation-id',
      'dev-1',
      '--base-url',
      sandbox.url,
    ];
    const { code, stdout, stderr } = await runInProcess([...args, '--log-format', 'json'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Subscribed device dev-1 of customer C-1001/);
    const lines = parseLines(stderr);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 'warn',
          event: 'warning',
          command: 'subscribe',
          message: expect.stringContaining('deprecated in favour of FcmV1'),
        }),
        expect.objectContaining({ message: expect.stringMatching(/retrying in .*503/i) }),
      ]),
    );
    expect(stdout + stderr).not.toContain(sandbox.pushToken);
    expect(sandbox.subscriptions()).toHaveLength(1);
  });

  it('keeps stderr JSON when the run cannot start: usage and credential errors', async () => {
    const file = membersCsv(tempDir(), 2);
    const usage = await runInProcess(['import', file, '--bach-size', '5', '--log-format', 'json'], isolatedEnv());
    expect(usage.code).toBe(2);
    expect(parseLines(usage.stderr)).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'usage-error',
        message: expect.stringContaining('--batch-size'),
      }),
    ]);

    const noToken = await runInProcess(
      ['import', file, '--base-url', sandbox.url, '--log-format', 'json'],
      isolatedEnv(),
    );
    expect(noToken.code).toBe(2);
    // one error shape, hint included (not a separate line), then the run's last line with its exit code
    const lines = parseLines(noToken.stderr);
    expect(lines.at(-2)).toMatchObject({
      level: 'error',
      event: 'error',
      code: 'no-token',
      message: expect.any(String),
      hint: expect.any(String),
    });
    expect(lines.at(-1)).toMatchObject({ level: 'error', event: 'finished', exitCode: 2 });
    expect(lines.some((line) => line.event === 'hint')).toBe(false);
  });
});

describe('validate --log-format json', () => {
  it('ends with a finished line as import does: exit code, counts, level by outcome', async () => {
    const dir = tempDir();
    const good = await runInProcess(['validate', membersCsv(dir, 3), '--log-format', 'json'], isolatedEnv());
    expect(good.code).toBe(0);
    expect(parseLines(good.stderr).at(-1)).toMatchObject({
      level: 'info',
      event: 'finished',
      command: 'validate',
      exitCode: 0,
      rows: 3,
      valid: 3,
      invalid: 0,
      durationMs: expect.any(Number),
    });

    const bad = membersCsv(dir, 4, (r) => (r === 2 ? 'm2,m2@example.com,Name2,maybe,2024-01-05T09:00:00Z' : undefined));
    const partial = await runInProcess(['validate', bad, '--json', '--log-format', 'json'], isolatedEnv());
    expect(partial.code).toBe(3);
    const last = parseLines(partial.stderr).at(-1);
    expect(last).toMatchObject({ level: 'warn', event: 'finished', exitCode: 3, rows: 4, valid: 3, invalid: 1 });
    expect(last?.reasons).toEqual([expect.objectContaining({ count: 1 })]);
    expect(JSON.stringify(last)).not.toContain('maybe'); // counts and reasons, no member data
  });

  it('a run that fails midway with --json ends with a finished line too', async () => {
    const run = await runInProcess(
      ['validate', 'fixtures/invalid/truncated.json', '--json', '--log-format', 'json'],
      isolatedEnv(),
    );
    expect(run.code).toBe(2);
    expect(parseLines(run.stderr).at(-1)).toMatchObject({ level: 'error', event: 'finished', exitCode: 2 });
  });
});
