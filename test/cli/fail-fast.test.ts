/**
 * A run that cannot succeed stops early: when the first requests all fail the same way for a cause retrying
 * cannot fix (404, a redirect, a refused port, TLS spoken to a plain server), memberctl stops after a handful of
 * requests, says why in one line on stderr (with --json too), counts what it did not send as failed, exits 4,
 * and --resume finishes the job once the cause is fixed.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { reply, startScriptedServer, type ScriptedServer } from '../http/scripted-server.js';
import { craftJwt, nowSeconds } from '../e2e/config-cli-helper.js';
import { bucketSum, isolatedEnv, membersCsv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const ROWS = 60;
const SMALL = ['--batch-size', '1'];

let server: ScriptedServer | undefined;
let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await Promise.all([server?.close(), sandbox?.close()]);
  server = undefined;
  sandbox = undefined;
});

/** The line on stderr that says why the run stopped. */
function diagnosis(stderr: string): string {
  return stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';
}

describe('early stop', () => {
  it.each([
    ['a wrong path (404)', 404, /HTTP 404.*base URL/],
    ['a redirect (302)', 302, /redirect.*base URL/],
  ])(
    '%s: a handful of requests, a one-line diagnosis with --json, the rest failed, exit 4',
    async (_name, status, expected) => {
      server = await startScriptedServer(
        [],
        reply(status, 'nope', status === 302 ? { location: 'https://login.example/' } : {}),
      );
      const csv = membersCsv(tempDir(), ROWS);
      const env = isolatedEnv({ MEMBERCTL_TOKEN: 'test-token-0123456789' });
      const result = await runInProcess(
        ['import', csv, '--base-url', server.url.href, ...SMALL, '--json', '--no-journal'],
        env,
      );
      expect(result.code).toBe(4);
      expect(server.received.length).toBeLessThanOrEqual(8);
      const report = JSON.parse(result.stdout);
      expect(report.failed).toBeGreaterThan(0);
      expect(bucketSum(report)).toBe(report.rows);
      expect(diagnosis(result.stderr)).toMatch(expected);
      expect(diagnosis(result.stderr)).toMatch(/stopped after/);
    },
  );

  it('failures that differ (a 503 among 404s) do not stop the run', async () => {
    server = await startScriptedServer(
      [reply(404, 'x'), reply(503, 'x'), reply(404, 'x')],
      reply(200, { importedCount: 1, updatedCount: 0, skipped: [] }),
    );
    const csv = membersCsv(tempDir(), 10);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: 'test-token-0123456789' });
    const result = await runInProcess(
      [
        'import',
        csv,
        '--base-url',
        server.url.href,
        ...SMALL,
        '--concurrency',
        '1',
        '--retries',
        '0',
        '--json',
        '--no-journal',
      ],
      env,
    );
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 10, importedCount: 7, failed: 3 });
  });

  it('TLS spoken to a plain HTTP server stops at once', async () => {
    sandbox = await startSandbox({ port: 0 });
    const csv = membersCsv(tempDir(), ROWS);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: sandbox.memberToken });
    const result = await runInProcess(
      ['import', csv, '--base-url', sandbox.url.replace('http:', 'https:'), ...SMALL, '--json', '--no-journal'],
      env,
    );
    expect(result.code).toBe(4);
    expect(diagnosis(result.stderr)).toMatch(/TLS/);
  });

  it('a refused port stops within a few quick retries; --resume imports everything once the server is up', async () => {
    const port = await freePort();
    const dir = tempDir();
    const csv = membersCsv(dir, ROWS);
    const journal = join(dir, 'run.journal');
    const token = craftJwt({ sub: 'fail-fast', exp: nowSeconds() + 3600 });
    const args = ['import', csv, '--base-url', `http://127.0.0.1:${port}/`, ...SMALL, '--journal', journal, '--json'];
    const first = await runInProcess(args, isolatedEnv({ MEMBERCTL_TOKEN: token }));
    expect(first.code).toBe(4);
    expect(diagnosis(first.stderr)).toMatch(/connection refused/);
    const report = JSON.parse(first.stdout);
    // a few quick retries per request, not the default five with backoff up to 8 s
    expect(report.requests).toBeLessThanOrEqual(16);
    expect(report.importedCount).toBe(0);

    sandbox = await startSandbox({ port });
    const second = await runInProcess([...args, '--resume'], isolatedEnv({ MEMBERCTL_TOKEN: token }));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: ROWS, importedCount: ROWS, failed: 0 });
    expect(sandbox.members()).toHaveLength(ROWS);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
