/**
 * A server that asks for a pause longer than the run may wait (Retry-After over --max-retry-after, 429 or 503,
 * seconds or an HTTP date) stops the run: nothing more is sent, every record is accounted for, exit 4, and the
 * summary says how long the server asked to wait and how to go on (--resume). Before, the batch failed and the
 * next went at once: 1,000 requests in 3.3 s against a server that asked for a day's pause.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startScriptedServer, type ScriptedServer, type Step } from '../http/scripted-server.js';
import { bucketSum, isolatedEnv, membersCsv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const OK: Step = (_req, res, body) => {
  const items = JSON.parse(body) as unknown[];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ importedCount: items.length, updatedCount: 0, skipped: null }));
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = () => isolatedEnv({ MEMBERCTL_TOKEN: 'test-token-0123456789' });

describe('a server that asks to wait longer than the run may', () => {
  it('Retry-After: 99999 on a 429 stops the run: 0 requests after it, counts add up, exit 4, --resume', async () => {
    let askedAt: number | undefined;
    const day: Step = (req, res, body) => {
      askedAt = server!.received.length;
      reply(429, { name: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '99999' })(req, res, body);
    };
    server = await startScriptedServer([OK, OK, OK, OK, OK], day);
    const csv = membersCsv(tempDir(), 1000);
    const run = await runInProcess(
      ['import', csv, '--base-url', server.url.href, '--batch-size', '1', '--concurrency', '1', '--json'],
      env(),
    );
    expect(run.code).toBe(4);
    expect(askedAt).toBe(6);
    expect(server.received.length - askedAt!).toBe(0); // nothing at all after the answer that asked for a day
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ importedCount: 5, failed: report.rows - 5, retryAfterMs: 99_999_000 });
    expect(report.maxRetryAfterMs).toBe(300_000);
    expect(bucketSum(report)).toBe(report.rows);
    expect(report.nextCommand).toMatch(/--resume$/);
    expect(report.error).toMatchObject({ code: 'server-wait', details: { retryAfter: '1 d 3 h' } });
    expect(run.stderr).toContain('error: the server asked to wait 1 d 3 h (HTTP 429 with Retry-After)');

    // the next night, read by a person: the server still asks for its day; the wait, the counts, the command
    const before = server.received.length;
    const again = await runInProcess(
      ['import', csv, '--base-url', server.url.href, '--batch-size', '1', '--concurrency', '1', '--resume'],
      env(),
    );
    expect(again.code).toBe(4);
    expect(server.received.length - before).toBe(1);
    expect(again.stdout).toContain('Stopped: the server asked to wait 1 d 3 h (Retry-After), longer than the 5 min');
    expect(again.stdout).toMatch(/imported\s+5\n/);
    expect(again.stderr).toMatch(/hint: Run again after \S+: memberctl import .* --resume\./);
  });

  it('503 with an HTTP date a day ahead, 4 requests in flight: none sent after them, none retried', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toUTCString();
    server = await startScriptedServer([], reply(503, 'maintenance', { 'retry-after': tomorrow }));
    const csv = membersCsv(tempDir(), 400);
    const run = await runInProcess(
      [
        'import',
        csv,
        '--base-url',
        server.url.href,
        '--batch-size',
        '10',
        '--concurrency',
        '4',
        '--json',
        '--no-journal',
      ],
      env(),
    );
    expect(run.code).toBe(4);
    expect(server.received.length).toBeLessThanOrEqual(4);
    const report = JSON.parse(run.stdout);
    expect(report.failed).toBe(report.rows);
    expect(report.retries).toBe(0);
    expect(report.retryAfterMs).toBeGreaterThan(86_000_000);
    expect(run.stderr).toMatch(/the server asked to wait (23 h 59 min|1 d) \(HTTP 503 with Retry-After\)/);
  });

  it('--max-retry-after sets the limit (a 2 s wait over 1s stops); a bad value is exit 2 before anything is sent', async () => {
    server = await startScriptedServer([], reply(429, '', { 'retry-after': '2' }));
    const csv = membersCsv(tempDir(), 20);
    const base = ['import', csv, '--base-url', server.url.href, '--concurrency', '1', '--no-journal', '--json'];
    const stopped = await runInProcess([...base, '--max-retry-after', '1s'], env());
    expect(stopped.code).toBe(4);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ retryAfterMs: 2000, maxRetryAfterMs: 1000, failed: 20 });
    expect(server.received).toHaveLength(1);
    // which values are refused, and MEMBERCTL_MAX_RETRY_AFTER, are settings tests (test/settings.test.ts)
    const refused = await runInProcess([...base, '--max-retry-after', '8d'], env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-retry-after');
    expect(server.received).toHaveLength(1);
  });
});
