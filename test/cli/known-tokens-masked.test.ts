/**
 * A token the run knows of, whatever its source (a --token-file, a profile's token file, the environment), never
 * leaves it: the token file given as the input by mistake is quoted by every diagnostic ("unknown column
 * <token>"), by map init's mapping (its columns are the headers) and by the --report's error. validate and map init
 * read no settings, yet a profile's token file is masked there too; import masks its --token-file's from the start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort, configDir, isolatedEnv } from '../e2e/config-cli-helper.js';
import { firstLineOf } from '../../src/core/settings/known-tokens.js';
import { runInProcess } from './run-in-process.js';

const MEMBER_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJrbm93biJ9.c2lnbmF0dXJl+b3Q/eA==';
const PUSH_TOKEN = 'push-opaque-3c1d9a7e5b';

function tokenFileIn(dir: string, token: string, name = 'prod.token'): string {
  const file = join(dir, name);
  writeFileSync(file, `${token}\n`);
  chmodSync(file, 0o600);
  return file;
}

/** Every place a run writes, read back: stdout, stderr and the files named. */
function everything(run: { stdout: string; stderr: string }, ...files: string[]): string {
  return [run.stdout, run.stderr, ...files.map((file) => readFileSync(file, 'utf8'))].join('\n');
}

describe('a token held only in a profile token file (validate and map init read no settings)', () => {
  const { xdg, dir } = configDir(
    { profiles: { prod: { tokenFile: 'prod.token' }, push: { pushTokenFile: 'push.token' } } },
    { 'prod.token': { text: MEMBER_TOKEN }, 'push.token': { text: PUSH_TOKEN } },
  );
  const env = isolatedEnv({ XDG_CONFIG_HOME: xdg });

  it.each([
    ['prod.token', MEMBER_TOKEN],
    ['push.token', PUSH_TOKEN],
  ])('validate %s: not on stderr, in --json or in the JSON log', async (name, token) => {
    const input = join(dir, name);
    for (const extra of [[], ['--json'], ['--log-format', 'json']]) {
      const run = await runInProcess(['validate', input, '--format', 'csv', ...extra], env);
      expect(run.code).toBe(2);
      expect(run.stdout + run.stderr).not.toContain(token);
      expect(run.stdout + run.stderr).toMatch(/unknown column \\?"\[redacted\]\\?"/);
    }
  });

  it('map init: not in the mapping on stdout, in --out, in --json or in the notes', async () => {
    const input = join(dir, 'prod.token');
    const out = join(mkdtempSync(join(tmpdir(), 'memberctl-known-')), 'mapping.json');
    const runs = [
      await runInProcess(['map', 'init', input, '--format', 'csv'], env),
      await runInProcess(['map', 'init', input, '--format', 'csv', '--json'], env),
      await runInProcess(['map', 'init', input, '--format', 'csv', '--out', out], env),
    ];
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(MEMBER_TOKEN);
    }
    expect(readFileSync(out, 'utf8')).not.toContain(MEMBER_TOKEN);
    expect(readFileSync(out, 'utf8')).toContain('[redacted]');
  });
});

describe('a token held only in the --token-file of the command line', () => {
  it('import: masked before its target is open, on stderr, --json, the JSON log and the --report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-known-'));
    const file = tokenFileIn(dir, MEMBER_TOKEN);
    const report = join(dir, 'report.json');
    const server = `http://127.0.0.1:${await closedPort()}`;
    const target = [
      ['--base-url', server, '--token-file', file],
      ['--sandbox', `--token-file=${file}`], // a sandbox never reads it: known from the command line all the same
    ];
    for (const flags of target) {
      for (const extra of [[], ['--json'], ['--log-format', 'json']]) {
        const args = ['import', file, '--format', 'csv', '--no-journal', '--report', report, '--force', ...flags];
        const run = await runInProcess([...args, ...extra], isolatedEnv());
        expect(run.code).toBe(2);
        expect(everything(run, report)).not.toContain(MEMBER_TOKEN);
        expect(run.stdout + run.stderr).toContain('[redacted]');
      }
    }
  });

  it('a FIFO is never opened to learn its token (its one reader is the command that needs it)', () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'memberctl-known-')), 'token.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(firstLineOf(fifo)).toBeUndefined();
  });
});
