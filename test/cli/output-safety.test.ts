/** Outputs never destroy the input or another file (issue 15 item 2), end to end through the whole command line (in-process). */
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolatedEnv, membersCsv } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-outsafe-'))));
afterEach(async () => rm(dir, { recursive: true, force: true }));
const env = isolatedEnv();

describe('an output that is the input is refused before reading (exit 2), and the input stays whole', () => {
  it('import --rejects INPUT', async () => {
    const file = membersCsv(dir, 5, (r) => (r === 2 ? 'm2,not-an-email,N,true,2024-01-05T09:00:00Z' : undefined));
    const before = await readFile(file, 'utf8');
    const run = await runInProcess(['import', file, '--sandbox', '--rejects', file], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: --rejects ${file} is the input ${file}: writing it would destroy that file`);
    expect(run.stderr).not.toMatch(/Done|Importing/);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('validate --output through a hard link, and --rejects through a symlink', async () => {
    const file = membersCsv(dir, 3);
    const before = await readFile(file, 'utf8');
    await link(file, join(dir, 'hard.ndjson'));
    await symlink(file, join(dir, 'soft.csv'));
    const hard = await runInProcess(['validate', file, '--output', join(dir, 'hard.ndjson')], env);
    expect(hard.code).toBe(2);
    expect(hard.stderr).toContain(`is the input ${file} (a link to it)`);
    const soft = await runInProcess(['validate', file, '--rejects', join(dir, 'soft.csv')], env);
    expect(soft.code).toBe(2);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('import --report onto --rejects, or a report that is a symlink to another file', async () => {
    const file = membersCsv(dir, 3);
    const same = await runInProcess(
      ['import', file, '--sandbox', '--rejects', join(dir, 'out.ndjson'), '--report', join(dir, 'out.ndjson')],
      env,
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('is the same file as --rejects');
    await writeFile(join(dir, 'precious'), 'keep me\n');
    await symlink(join(dir, 'precious'), join(dir, 'report.json'));
    const linked = await runInProcess(['import', file, '--sandbox', '--report', join(dir, 'report.json')], env);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain('is a symbolic link: memberctl never writes through one');
    expect(await readFile(join(dir, 'precious'), 'utf8')).toBe('keep me\n');
  });
});

describe('a --rejects file that cannot be written is refused before anything is sent (exit 2)', () => {
  it('its folder does not exist, or cannot be written (as root, only the first)', async () => {
    const file = membersCsv(dir, 3);
    const data = join(dir, 'sandbox.json');
    const readOnly = join(dir, 'read-only');
    await mkdir(readOnly, { mode: 0o555 });
    const cases: [string, RegExp][] = [
      [join(dir, 'no-such-folder', 'rejects.csv'), /ENOENT \(its folder does not exist\)/],
    ];
    if (process.getuid?.() !== 0) cases.push([join(readOnly, 'rejects.csv'), /EACCES \(permission denied\)/]);
    for (const [rejects, why] of cases) {
      const run = await runInProcess(['import', file, '--sandbox', '--sandbox-data', data, '--rejects', rejects], env);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        new RegExp(`^error: cannot write rejects file ${rejects.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      );
      expect(lines[0]).toMatch(why);
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^hint: /)]);
      // nothing was sent: the sandbox kept no member
      expect(JSON.stringify(await readFile(data, 'utf8').catch(() => '{}'))).not.toContain('m1@example.com');
    }
  });
});

describe('outputs are replaced whole', () => {
  it('a report and a rejects file replace the old ones by rename, leave no temp file, mode 0600', async () => {
    const file = membersCsv(dir, 4, (r) => (r === 3 ? 'm3,m3@example.com,N,maybe,2024-01-05T09:00:00Z' : undefined));
    await writeFile(join(dir, 'report.json'), 'last night\n');
    await writeFile(join(dir, 'rejects.csv'), 'last night\n');
    const run = await runInProcess(
      // files memberctl did not write itself: replaced only with --force (the next test)
      [
        'import',
        file,
        '--sandbox',
        '--rejects',
        join(dir, 'rejects.csv'),
        '--report',
        join(dir, 'report.json'),
        '--force',
      ],
      env,
    );
    expect(run.code).toBe(3);
    expect(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'))).toMatchObject({
      rows: 4,
      invalid: 1,
      importedCount: 3,
    });
    expect((await readFile(join(dir, 'rejects.csv'), 'utf8')).split('\n')[1]).toMatch(/^m3,m3@example.com,N,maybe/);
    for (const name of ['report.json', 'rejects.csv']) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((name) => name.includes('memberctl-tmp'))).toEqual([]);
  });

  it('a rejects file fixed by hand is not replaced by the next run: exit 2 naming it, before reading; --force replaces it', async () => {
    const file = membersCsv(dir, 4, (r) => (r === 3 ? 'm3,m3@example.com,N,maybe,2024-01-05T09:00:00Z' : undefined));
    const fixMe = join(dir, 'fix-me.csv');
    const args = ['import', file, '--sandbox', '--rejects', fixMe];
    expect((await runInProcess(args, env)).code).toBe(3);
    expect((await runInProcess(args, env)).code).toBe(3); // memberctl's own file, unchanged: replaced
    const fixed = (await readFile(fixMe, 'utf8')).replace('maybe', 'true');
    await writeFile(fixMe, fixed);
    const refused = await runInProcess(args, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `error: --rejects ${fixMe} has changed since memberctl wrote it: it is not replaced`,
    );
    expect(refused.stderr).toContain('--force');
    expect(refused.stderr).not.toMatch(/imported|rows/); // refused before the input was read
    expect(await readFile(fixMe, 'utf8')).toBe(fixed);
    expect((await runInProcess([...args, '--force'], env)).code).toBe(3);
    expect(await readFile(fixMe, 'utf8')).not.toBe(fixed);
  });
});
