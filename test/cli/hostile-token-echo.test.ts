/**
 * A hostile server that echoes the bearer token everywhere it can: the status text, a 302's Location (raw and
 * percent-encoded), any header, the body, a 400's error and details, a 200's skipped reasons. Whatever it sends,
 * the token never shows: not on stderr, stdout (--json), the rejects file, the report or the JSON log.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer, type Step } from '../http/scripted-server.js';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { membersCsv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

/** token68 characters that percent-encoding changes (+ / =), so an encoded echo differs from the raw one. */
const MEMBER_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJob3N0aWxlIn0.Zm9v+YmFy/c2ln==';
const PUSH_TOKEN = 'push+secret/opaque-7f3a9c==';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function tokenFile(token: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'memberctl-hostile-')), 'token');
  writeFileSync(file, `${token}\n`);
  chmodSync(file, 0o600);
  return file;
}

/** The token as the request carried it, echoed in every place a response has. */
function echoed(req: IncomingMessage): { raw: string; encoded: string } {
  const raw = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  return { raw, encoded: encodeURIComponent(raw) };
}

function hostile(status: number, body: (token: string) => unknown): Step {
  return (req: IncomingMessage, res: ServerResponse) => {
    const { raw, encoded } = echoed(req);
    res.writeHead(status, `Echo ${raw}`, {
      'content-type': 'application/json',
      location: `https://evil.example/login?token=${raw}&t2=${encoded}`,
      'x-echo': raw,
      'www-authenticate': `Bearer realm="${raw}"`,
      'retry-after': '0',
    });
    res.end(JSON.stringify(body(raw)));
  };
}

const errorBody = (token: string) => ({
  name: `E${token}`,
  message: `bad token ${token} (${encodeURIComponent(token)})`,
  details: [{ field: token }],
});

describe('a server that echoes the token everywhere', () => {
  it('import: not on stderr, --json, the rejects file, the report or the JSON log', async () => {
    const dir = tempDir();
    const csv = membersCsv(dir, 6);
    const steps = [
      hostile(302, errorBody),
      hostile(400, errorBody),
      hostile(500, errorBody),
      hostile(200, (t) => ({
        importedCount: 0,
        updatedCount: 0,
        skipped: [{ memberId: 'm4', reason: `skipped for ${t}` }],
      })),
      hostile(404, errorBody),
      hostile(301, (t) => t),
    ];
    server = await startScriptedServer(steps);
    const rejects = join(dir, 'rejects.csv');
    const report = join(dir, 'report.json');
    const result = await runInProcess(
      [
        '--log-format',
        'json',
        'import',
        csv,
        '--base-url',
        server.url.href,
        '--token-file',
        tokenFile(MEMBER_TOKEN),
        '--batch-size',
        '1',
        '--concurrency',
        '1',
        '--retries',
        '0',
        '--no-journal',
        '--rejects',
        rejects,
        '--report',
        report,
        '--json',
      ],
      isolatedEnv(),
    );
    expect(server.received.length).toBeGreaterThanOrEqual(6);
    expect(server.received[0]!.headers.authorization).toBe(`Bearer ${MEMBER_TOKEN}`);
    const everything = [result.stdout, result.stderr, readFileSync(rejects, 'utf8'), readFileSync(report, 'utf8')].join(
      '\n',
    );
    expect(readFileSync(rejects, 'utf8')).toContain('redirected');
    for (const form of [
      MEMBER_TOKEN,
      encodeURIComponent(MEMBER_TOKEN),
      encodeURIComponent(MEMBER_TOKEN).toLowerCase(),
    ]) {
      expect(everything).not.toContain(form);
    }
    expect(everything).toContain('[redacted]');
  });

  it('subscribe: not on stderr, in --json or the JSON log, for a redirect and for an error body', async () => {
    const cases: [Step, number][] = [
      [hostile(302, (t) => ({ title: t, detail: t })), 4],
      [
        hostile(422, (t) => ({ title: `bad ${t}`, detail: encodeURIComponent(t), instance: t.replaceAll('/', '\\/') })),
        3,
      ],
    ];
    for (const [step, code] of cases) {
      server = await startScriptedServer([step]);
      const result = await runInProcess(
        [
          'subscribe',
          'cust-1',
          '--token-handle',
          'a1b2c3d4e5f6',
          '--platform',
          'apns',
          '--installation-id',
          'i1',
          '--base-url',
          server.url.href,
          '--token-file',
          tokenFile(PUSH_TOKEN),
          '--json',
          '--log-format',
          'json',
        ],
        isolatedEnv(),
      );
      expect(result.code).toBe(code);
      expect(server.received[0]!.headers.authorization).toBe(`Bearer ${PUSH_TOKEN}`);
      for (const form of [PUSH_TOKEN, encodeURIComponent(PUSH_TOKEN)])
        expect(result.stdout + result.stderr).not.toContain(form);
      await server.close();
      server = undefined;
    }
  });
});

describe('the token file given as the input by mistake', () => {
  it('errors quote the input, never the token: the tokens of the environment are masked on stderr and in the JSON log', async () => {
    const file = tokenFile(PUSH_TOKEN);
    const env = isolatedEnv({ MEMBERCTL_TOKEN: MEMBER_TOKEN, MEMBERCTL_PUSH_TOKEN: PUSH_TOKEN });
    const runs = [
      await runInProcess(['validate', file, '--format', 'csv'], env),
      await runInProcess(['validate', file, '--format', 'csv', '--log-format', 'json'], env),
      await runInProcess(['import', file, '--format', 'csv', '--sandbox'], env),
    ];
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout + run.stderr).not.toContain(PUSH_TOKEN);
      // as text, or inside a JSON log line (its quotes escaped)
      expect(run.stderr).toMatch(/unknown column \\?"\[redacted\]\\?"/);
    }
  });
});
