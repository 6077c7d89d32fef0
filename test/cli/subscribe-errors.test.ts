/**
 * `memberctl subscribe` against answers the sandbox does not give: HTML error pages from a proxy, a server that
 * echoes the Authorization header, and the token read from --token-file. A scripted node:http server on port 0.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startScriptedServer, type ScriptedServer, type Step } from '../http/scripted-server.js';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const TOKEN = 'push-secret-from-file-91b2';
const ARGS = [
  'cust-1',
  '--token-handle',
  'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
  '--platform',
  'apns',
  '--installation-id',
  'i1',
];
const HTML = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>${'<p>nginx</p>'.repeat(300)}</body></html>`;
const html =
  (status: number): Step =>
  (_q, res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(HTML);
  };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function tokenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-push-'));
  const file = join(dir, 'push.token');
  writeFileSync(file, `${TOKEN}\n`);
  chmodSync(file, 0o600);
  return file;
}

async function run(steps: Step[], extra: string[] = []) {
  server = await startScriptedServer(steps);
  return runInProcess(
    ['subscribe', ...ARGS, '--base-url', server.url.href, '--token-file', tokenFile(), ...extra],
    isolatedEnv(),
  );
}

describe('memberctl subscribe: a server that asks to wait a day', () => {
  it('says when to run the command again, not that the subscription may or may not be stored', async () => {
    const wait: Step = (_q, res) => {
      res.writeHead(429, { 'retry-after': '86400', 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Too Many Requests', status: 429 }));
    };
    const before = Date.now();
    const result = await run([wait]);
    expect(result.code).toBe(4);
    expect(server!.received).toHaveLength(1);
    const hint = result.stderr.split('\n').find((line) => line.startsWith('hint:'))!;
    expect(hint).toMatch(/^hint: run the same command again after (\S+) \(it is idempotent by installation id\)$/);
    const until = Date.parse(hint.match(/after (\S+) /)![1]!);
    expect(until - before).toBeGreaterThanOrEqual(86_400_000);
    expect(result.stderr).not.toContain('may or may not be stored');
  });
});

describe('memberctl subscribe: error bodies that are not problem+json', () => {
  it('reads the token from --token-file and sends it as a bearer token', async () => {
    const result = await run([reply(201, '')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('HTTP 201');
    expect(server!.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(result.stderr).not.toContain('readable by group');
  });

  it('an HTML 502 page is retried, then summarized in a few words (exit 4)', async () => {
    const result = await run([html(502), html(502), html(502), html(502)], ['--json']);
    expect(result.code).toBe(4);
    expect(server!.received).toHaveLength(4);
    const { error } = JSON.parse(result.stdout);
    expect(error.status).toBe(502);
    expect(error.detail).toContain('502 Bad Gateway');
    expect(error.detail).toContain('gave up after 3 retries');
    expect(result.stdout + result.stderr).not.toContain('<');
    expect(result.stderr.length).toBeLessThan(600);
  });

  it('an HTML 404 is a refusal (exit 3) that points at the base URL', async () => {
    const result = await run([html(404)]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('check the base URL');
    expect(result.stderr).not.toContain('<');
  });

  it('a server echoing the Authorization header cannot make the token appear', async () => {
    const echo: Step = (req, res) => {
      res.writeHead(403, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          title: 'Forbidden',
          status: 403,
          detail: `token ${req.headers.authorization} lacks scope push:write`,
        }),
      );
    };
    const result = await run([echo], ['--json']);
    expect(result.code).toBe(5);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(JSON.parse(result.stdout).error.detail).toBe('token Bearer [redacted] lacks scope push:write');
  });

  it('a 500 with a problem body is reported, not retried (exit 4)', async () => {
    const problem: Step = (_q, res) => {
      res.writeHead(500, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Internal Server Error', status: 500, detail: 'hub unreachable' }));
    };
    const result = await run([problem]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('error: Internal Server Error: hub unreachable (500)');
    expect(server!.received).toHaveLength(1);
  });

  it('a 200 whose body never ends: one error line, not confirmed (exit 4), never a hang', async () => {
    const endless: Step = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    };
    const result = await run([endless]);
    expect(result.code).toBe(4);
    const [error, hint, ...rest] = result.stderr.trimEnd().split('\n');
    expect(error).toMatch(/^error: HTTP 200: the body is larger than the 64 KiB a subscribe answer may be \(\d+ bytes/);
    expect(hint).toMatch(/^hint: the subscription may or may not be stored; running the same command again is safe/);
    expect(rest).toEqual([]);
    expect(server!.received).toHaveLength(1);
  });
});
