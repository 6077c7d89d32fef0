import { describe, expect, it } from 'vitest';
import { createJsonLog, logFormatFromArgv } from '../src/cli/log-format.js';
import type { ImportSummary } from '../src/core/import/types.js';

const summary: ImportSummary = {
  rows: 10,
  invalid: 1,
  unchanged: 0,
  importedCount: 6,
  updatedCount: 1,
  skipped: 1,
  skippedExamples: [{ memberId: 'M-7', reason: 'duplicate', record: 7, line: 8 }],
  rejected: 1,
  failed: 0,
  batches: 2,
  requests: 4,
  retries: 1,
  durationMs: 12,
  topReasons: { invalid: [{ reason: 'email: too long', count: 1 }], skipped: [], rejected: [], failed: [] },
  finalBatchSize: 5,
  concurrency: { final: 3, max: 6 },
  warnings: 0,
  paddedRows: 0,
};

function capture(secrets: string[] = []) {
  const lines: string[] = [];
  const log = createJsonLog({
    write: (line) => lines.push(line),
    secrets,
    now: () => new Date('2026-01-02T03:04:05Z'),
    context: { command: 'import' },
  });
  return { log, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('JSON log lines', () => {
  it('writes one JSON object per line with time, level, event and the event fields', () => {
    const { log, lines, parsed } = capture();
    log.onImportEvent({ type: 'run-started', batchSize: 500, maxBatchBytes: 1048576, concurrency: 4, adaptive: true });
    log.onImportEvent({
      type: 'batch-confirmed',
      batch: 1,
      firstRecord: 1,
      lastRecord: 5,
      size: 5,
      importedCount: 4,
      updatedCount: 1,
      skipped: 0,
      durationMs: 3,
    });
    log.onImportEvent({ type: 'retry', reason: 'HTTP 503', delayMs: 250, attempt: 1, status: 503 });
    log.onImportEvent({
      type: 'progress',
      progress: { recordsRead: 5, settled: 5, confirmed: 5, inFlight: 0, concurrency: 4 },
    });
    log.onImportEvent({ type: 'finished', summary });
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    expect(parsed()).toEqual([
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'info',
        event: 'run-started',
        runId: expect.stringMatching(/^[0-9a-f]{12}$/),
        pid: process.pid,
        command: 'import',
        batchSize: 500,
        maxBatchBytes: 1048576,
        concurrency: 4,
        adaptive: true,
      },
      expect.objectContaining({
        level: 'info',
        event: 'batch-confirmed',
        firstRecord: 1,
        lastRecord: 5,
        importedCount: 4,
      }),
      expect.objectContaining({ level: 'warn', event: 'retry', reason: 'HTTP 503', delayMs: 250 }),
      expect.objectContaining({
        level: 'info',
        event: 'finished',
        rows: 10,
        skipped: 1,
        rejected: 1,
        concurrency: { final: 3, max: 6 },
      }),
    ]);
  });

  it('logs a run with failures or a stop as an error', () => {
    const { log, parsed } = capture();
    log.onImportEvent({ type: 'finished', summary: { ...summary, failed: 2 } });
    log.onImportEvent({ type: 'finished', summary: { ...summary, stopReason: 'credentials', stopMessage: 'expired' } });
    expect(parsed().map((line) => line.level)).toEqual(['error', 'error']);
  });

  it('every line carries the same run id and the pid; finished carries the exit code at the level it deserves', async () => {
    const { logFinished } = await import('../src/cli/log-format.js');
    const { log, parsed } = capture();
    log.log('info', 'notice', { message: 'x' });
    logFinished(log, summary, 'ok');
    logFinished(log, summary, 'partial', { absentFromInput: 2 });
    logFinished(log, { ...summary, failed: 1 }, 'not-confirmed');
    const lines = parsed();
    expect(new Set(lines.map((line) => line.runId)).size).toBe(1);
    expect(lines.every((line) => line.pid === process.pid)).toBe(true);
    expect(lines.slice(1).map(({ level, exitCode }) => ({ level, exitCode }))).toEqual([
      { level: 'info', exitCode: 0 },
      { level: 'warn', exitCode: 3 },
      { level: 'error', exitCode: 4 },
    ]);
    expect(lines[2]).toMatchObject({ rows: 10, absentFromInput: 2 });
  });

  it('an error rendered through a JSON output is one line {level, code, message, hint}', async () => {
    const { jsonStderrOutput } = await import('../src/cli/log-format.js');
    const { createOutput, renderError } = await import('../src/cli/output.js');
    const { InputError } = await import('../src/errors.js');
    const { log, parsed } = capture();
    renderError(
      new InputError('crm.csv line 9: cut short', { code: 'input-csv', hint: 'Export again.' }),
      jsonStderrOutput(createOutput(), log),
    );
    expect(parsed()).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'error',
        code: 'input-csv',
        message: 'crm.csv line 9: cut short',
        hint: 'Export again.',
      }),
    ]);
  });

  it('masks a secret wherever it would appear', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const { log, lines } = capture([token]);
    log.log('warn', 'warning', { message: `server echoed Bearer ${token}` });
    expect(lines.join('')).not.toContain(token);
    expect(JSON.parse(lines[0]!).message).toBe('server echoed Bearer [redacted]');
  });

  it('reads --log-format from argv in both spellings', () => {
    expect(logFormatFromArgv(['node', 'm', 'import', 'f.csv', '--log-format', 'json'])).toBe('json');
    expect(logFormatFromArgv(['node', 'm', '--log-format=json', 'import'])).toBe('json');
    expect(logFormatFromArgv(['node', 'm', 'import', '--log-format', 'text'])).toBe('text');
    expect(logFormatFromArgv(['node', 'm', 'import'])).toBe('text');
  });
});

describe('jsonStderrOutput', () => {
  it("turns an Output's stderr lines into JSON lines by their prefix, leaving stdout alone", async () => {
    const { jsonStderrOutput } = await import('../src/cli/log-format.js');
    const { log, parsed } = capture(['s3cr3t-token']);
    const stdout: string[] = [];
    const output = jsonStderrOutput(
      {
        out: (text: string) => stdout.push(text),
        err: (_text: string) => undefined,
        warn: (_text: string) => undefined,
      },
      log,
    );
    output.err('\u001b[31merror:\u001b[39m HTTP 400: platform invalid');
    output.err('hint: check the token s3cr3t-token');
    output.err('note: sending to the sandbox');
    output.warn('Fcm is deprecated');
    output.out('Subscribed device');
    expect(parsed().map(({ level, event, message }) => ({ level, event, message }))).toEqual([
      { level: 'error', event: 'error', message: 'HTTP 400: platform invalid' },
      { level: 'info', event: 'hint', message: 'check the token [redacted]' },
      { level: 'info', event: 'note', message: 'sending to the sandbox' },
      { level: 'warn', event: 'warning', message: 'Fcm is deprecated' },
    ]);
    expect(stdout).toEqual(['Subscribed device']);
  });
});
