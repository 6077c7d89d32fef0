/**
 * The nightly cron guide's script, run as written: its "Once" block and its job script are taken from
 * docs/guides/nightly-cron.md, with only the system folders (/var/lock, /var/log/memberctl, /var/lib/memberctl,
 * /data) moved into a temp folder. `memberctl` on the PATH is the built CLI, `mail` a stand-in that keeps each mail,
 * and the profile `prod` points at a sandbox with a strict token. From an empty folder: three nights that work
 * (all sent, nothing sent, one change sent) and mail nothing, then a night whose config check fails: one mail,
 * whose body names the reason and the next step.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { CLI, configDir, craftJwt, isolatedEnv, nowSeconds } from './config-cli-helper.js';

const repo = join(import.meta.dirname, '..', '..');
const guide = readFileSync(join(repo, 'docs', 'guides', 'nightly-cron.md'), 'utf8');
const shBlocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
const onceBlock = shBlocks.find((block) => block.includes('state init'))!;
const jobScript = shBlocks.find((block) => block.startsWith('#!/bin/sh'))!;

const root = mkdtempSync(join(tmpdir(), 'memberctl-nightly-script-'));
/** The guide's system folders, moved into the temp folder (nothing else of the text changes). */
const moved = (text: string) =>
  text
    .replaceAll('/var/lock/', `${root}/lock/`)
    .replaceAll('/var/log/memberctl', `${root}/log/memberctl`)
    .replaceAll('/var/lib/memberctl', `${root}/lib/memberctl`)
    .replaceAll('cd /data ', `cd ${root}/data `);

const TOKEN = craftJwt({ sub: 'nightly', exp: nowSeconds() + 86_400 * 30 });
let sandbox: SandboxHandle | undefined;
afterAll(async () => {
  await sandbox?.close();
});

function setUp(): NodeJS.ProcessEnv {
  for (const folder of ['bin', 'lock', 'mail', 'data']) mkdirSync(join(root, folder));
  const bin = join(root, 'bin');
  writeFileSync(join(bin, 'memberctl'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  // mail -s SUBJECT ADDRESS, the body on stdin: each mail becomes a file
  writeFileSync(
    join(bin, 'mail'),
    `#!/bin/sh\nf="${root}/mail/$(ls "${root}/mail" | wc -l).txt"\n{ echo "to: $3"; echo "subject: $2"; cat; } >"$f"\n`,
  );
  for (const name of ['memberctl', 'mail']) chmodSync(join(bin, name), 0o755);
  const script = join(bin, 'memberctl-nightly');
  writeFileSync(script, moved(jobScript));
  chmodSync(script, 0o755);
  copyFileSync(join(repo, 'fixtures', 'crm-export.csv'), join(root, 'data', 'crm-export.csv'));
  copyFileSync(join(repo, 'fixtures', 'crm-mapping.json'), join(root, 'data', 'crm-mapping.json'));
  const { xdg } = configDir(
    { profiles: { prod: { baseUrl: sandbox!.url, tokenFile: 'prod.token' } } },
    { 'prod.token': { text: TOKEN } },
  );
  return isolatedEnv({ XDG_CONFIG_HOME: xdg, PATH: `${bin}:${process.env.PATH ?? ''}` });
}

function sh(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', args, { env, cwd: root }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const mails = () =>
  readdirSync(join(root, 'mail'))
    .sort()
    .map((name) => readFileSync(join(root, 'mail', name), 'utf8'));
const logLines = () =>
  readFileSync(join(root, 'log', 'memberctl', 'import.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const lastFinished = () => logLines().findLast((line) => line.event === 'finished');

describe('the nightly cron guide: its script as written', () => {
  it('runs from an empty folder: three good nights mail nothing; a failed config check mails its reason and next step', {
    timeout: 120_000,
  }, async () => {
    sandbox = await startSandbox({ memberToken: TOKEN, strictTokens: true });
    const env = setUp();
    const once = await sh(['-e', '-c', moved(onceBlock)], env);
    expect(once.code, once.output).toBe(0);
    expect(existsSync(join(root, 'lib', 'memberctl', 'crm.state'))).toBe(true);
    const nightly = () => sh([join(root, 'bin', 'memberctl-nightly')], env);

    // night 1: the empty state sends every member
    const first = await nightly();
    expect(first.code, first.output + mails().join('\n')).toBe(0);
    expect(lastFinished()).toMatchObject({ exitCode: 0, rows: 8, importedCount: 8 });
    expect(sandbox.memberCount()).toBe(8);

    // night 2: nothing changed, nothing sent
    const second = await nightly();
    expect(second.code, second.output + mails().join('\n')).toBe(0);
    expect(lastFinished()).toMatchObject({ exitCode: 0, unchanged: 8, importedCount: 0, updatedCount: 0 });

    // night 3: one member's e-mail changed: that member alone is sent
    const exportPath = join(root, 'data', 'crm-export.csv');
    writeFileSync(
      exportPath,
      readFileSync(exportPath, 'utf8').replace('ingrid.halvorsen@example.no', 'ingrid@example.no'),
    );
    const third = await nightly();
    expect(third.code, third.output + mails().join('\n')).toBe(0);
    expect(lastFinished()).toMatchObject({ exitCode: 0, unchanged: 7, updatedCount: 1 });
    expect(sandbox.getMember('0031X00000aBcDe')?.email).toBe('ingrid@example.no');
    expect(mails()).toEqual([]);

    // night 4: the server cannot be reached: config check fails, nothing is imported, one mail says why and what next
    await sandbox.close();
    sandbox = undefined;
    const fourth = await nightly();
    expect(fourth.code).toBe(4);
    const [mail] = mails();
    expect(mails()).toHaveLength(1);
    expect(mail).toContain('subject: memberctl nightly: exit 4');
    const reason = JSON.parse(mail!.split('\n')[2]!) as Record<string, string>;
    expect(reason).toMatchObject({ level: 'error', command: 'config check', code: 'not-ready' });
    expect(reason.message).toMatch(/^not ready: cannot connect to 127\.0\.0\.1/);
    expect(reason.hint).toContain('memberctl config check --profile prod');
  });
});
