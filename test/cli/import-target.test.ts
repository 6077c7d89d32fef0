/**
 * import's target is resolved before the run (src/cli/target.ts, resolveImportTarget): a server's base URL and
 * token at once, so a wrong configuration is refused before the input is read; a --sandbox is named then and
 * started only when the run opens it (once its input is open), and stopped once however often it is closed.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/core/settings/index.js';
import { resolveImportTarget } from '../../src/cli/target.js';
import { call, IMPORT, member } from '../sandbox/helpers.js';

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
