/**
 * import's target is resolved before the run (src/cli/target.ts, resolveImportTarget): a server's base URL and
 * token at once, so a wrong configuration is refused before the input is read; a --sandbox is named then and
 * started only when the run opens it (once its input is open), and stopped once however often it is closed.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/core/settings/index.js';
import { resolveImportTarget } from '../../src/cli/target.js';
import { call, IMPORT, member } from '../sandbox/helpers.js';
import { isolatedEnv } from '../e2e/config-cli-helper.js';
import { runInProcess } from './run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-import-target-'));
/** Settings from the given flags only: an empty environment and a home with no config file. */
const settings = (flags: Record<string, string> = {}) => loadSettings({ env: {}, home: dir, flags });

describe("import's target", () => {
  it('a server is resolved before the run: its base URL and token without opening anything', async () => {
    const tokenFile = join(dir, 'member.token');
    writeFileSync(tokenFile, 'abc.def.ghi\n');
    chmodSync(tokenFile, 0o600);
    const target = await resolveImportTarget({}, settings({ baseUrl: 'https://api.example.com/v1', tokenFile }));
    expect(target).toMatchObject({ name: 'https://api.example.com/v1', isSandbox: false });
    expect(target.description).toBe('https://api.example.com/v1/');
    const opened = await target.open();
    expect(opened.token).toBe('abc.def.ghi');
    expect(opened.baseUrl.href).toBe('https://api.example.com/v1/');
    await target.close();
  });

  it('a wrong configuration is refused by the resolution itself, before a run could read its input', async () => {
    await expect(resolveImportTarget({}, settings())).rejects.toMatchObject({ code: 'no-base-url', category: 'usage' });
    await expect(resolveImportTarget({ sandboxData: 'x.json' }, settings())).rejects.toThrow(
      '--sandbox-data needs --sandbox',
    );
    await expect(resolveImportTarget({ sandbox: true, baseUrl: 'https://a.example' }, settings())).rejects.toThrow(
      '--sandbox and --base-url exclude each other',
    );
  });

  it('a --sandbox is named at once and started only when opened (a store folder that is missing fails then)', async () => {
    const dataFile = join(dir, 'missing-folder', 'members.json');
    const target = await resolveImportTarget({ sandbox: true, sandboxData: dataFile }, settings());
    expect(target).toMatchObject({ name: `a local sandbox with data file ${resolve(dataFile)}`, isSandbox: true });
    expect(target.description).toBe(`a local sandbox (its members are kept in ${dataFile})`);
    await expect(target.open()).rejects.toThrow("cannot write the store file's folder");
    await target.close(); // nothing started, nothing to stop
  });

  it('an opened --sandbox is one sandbox however often opened, stopped once however often closed', async () => {
    const target = await resolveImportTarget({ sandbox: true }, settings());
    expect(target.name).toBe('a local sandbox (ephemeral)');
    const opened = await target.open();
    expect(await target.open()).toBe(opened);
    expect(opened.baseUrl.hostname).toBe('127.0.0.1');
    expect((await fetch(new URL('_sandbox/stats', opened.baseUrl))).ok).toBe(true);
    await target.close();
    await target.close(); // a no-op: a run closes it before its report and again on the way out
    await expect(fetch(new URL('_sandbox/stats', opened.baseUrl))).rejects.toThrow();
  });

  it('a sandbox whose stop fails fails once: closed again on the way out, it does not throw the same failure twice', async () => {
    const dataFile = join(mkdtempSync(join(dir, 'store-')), 'members.json');
    const target = await resolveImportTarget({ sandbox: true, sandboxData: dataFile }, settings());
    const opened = await target.open();
    // a folder (not empty) where the store file goes, before the member comes: every write of the store fails
    mkdirSync(join(dataFile, 'in-the-way'), { recursive: true });
    const sent = await call(opened.baseUrl.origin, IMPORT, {
      method: 'POST',
      headers: { authorization: `Bearer ${opened.token}`, 'content-type': 'application/json' },
      body: JSON.stringify([member('m1')]),
    });
    expect(sent.status).toBe(200);
    await expect(target.close()).rejects.toThrow();
    await target.close();
  });
});

describe('import resolves its target before it reads the input (the whole command, in-process)', () => {
  const missing = join(dir, 'missing.csv');

  it('a wrong configuration is said first, even when the input is wrong too', async () => {
    const run = await runInProcess(['import', missing], isolatedEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: no base URL: nothing to send to');
    expect(run.stderr).not.toContain('missing.csv');
  });

  it('a run that fails on its input names its target in the report (it was resolved before)', async () => {
    const report = join(dir, 'input-failed.json');
    const env = isolatedEnv({ MEMBERCTL_TOKEN: 'abc.def.ghi' });
    const run = await runInProcess(
      ['import', missing, '--base-url', 'https://api.example.com', '--report', report],
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing.csv');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ exitCode: 2, target: 'https://api.example.com' });
  });

  it('a --sandbox is not started for a wrong input: its store folder, missing too, is not looked at', async () => {
    const data = join(dir, 'no-such-folder', 'members.json');
    const run = await runInProcess(['import', missing, '--sandbox', '--sandbox-data', data], isolatedEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing.csv');
    expect(run.stderr).not.toContain('no-such-folder');
  });
});
