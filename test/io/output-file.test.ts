import { chmod, link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOutputFile, writeOutputFile } from '../../src/io/output-file.js';
import { checkOutputPaths } from '../../src/io/output-paths.js';
import { MemberctlError } from '../../src/errors.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'memberctl-output-'))));
afterEach(async () => {
  await chmod(dir, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const INPUT = 'memberId,email\nm1,a@example.com\n';
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemberctlError);
  return error as MemberctlError;
};

/** How an output path relates to the input: the shapes a user (or an attacker) can give. */
type Shape =
  | 'input itself'
  | 'hard link to input'
  | 'symlink to input'
  | 'symlink to other file'
  | 'dangling symlink'
  | 'other file'
  | 'earlier output'
  | 'new file'
  | 'read-only folder';
const SHAPES: Shape[] = [
  'input itself',
  'hard link to input',
  'symlink to input',
  'symlink to other file',
  'dangling symlink',
  'other file',
  'earlier output',
  'new file',
  'read-only folder',
];

async function makeCase(root: string, shape: Shape): Promise<{ input: string; output: string; other: string }> {
  await mkdir(root, { recursive: true });
  const input = join(root, 'members.csv');
  const other = join(root, 'precious.txt');
  await writeFile(input, INPUT);
  await writeFile(other, 'precious\n');
  const output = join(root, 'out.ndjson');
  switch (shape) {
    case 'input itself':
      return { input, output: input, other };
    case 'hard link to input':
      await link(input, output);
      break;
    case 'symlink to input':
      await symlink(input, output);
      break;
    case 'symlink to other file':
      await symlink(other, output);
      break;
    case 'dangling symlink':
      await symlink(join(root, 'nowhere'), output);
      break;
    case 'other file':
      await writeFile(output, 'old report\n');
      break;
    case 'earlier output':
      await writeOutputFile(output, 'rejects', 'last night');
      break;
    case 'new file':
      break;
    case 'read-only folder': {
      const ro = join(root, 'ro');
      await mkdir(ro);
      await chmod(ro, 0o500);
      return { input, output: join(ro, 'out.ndjson'), other };
    }
  }
  return { input, output, other };
}

describe('output files (property: whatever the path, the input and other files survive)', () => {
  it('refuses the input and links, writes anything else completely, and never touches another file', async () => {
    const root = () => join(dir, `case-${Math.random().toString(36).slice(2)}`);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SHAPES),
        fc.array(
          fc.string({ maxLength: 40 }).map((s) => s.replace(/\n/g, ' ')),
          { maxLength: 30 },
        ),
        async (shape, lines) => {
          const { input, output, other } = await makeCase(root(), shape);
          const isRoot = process.getuid?.() === 0; // root writes into a read-only folder anyway
          const refused = [
            'input itself',
            'hard link to input',
            'symlink to input',
            'symlink to other file',
            'dangling symlink',
            'other file', // not memberctl's own output: someone's work, replaced only with --force
          ].includes(shape);
          let error: unknown;
          try {
            await checkOutputPaths([input], [{ flag: '--rejects', path: output, ownOnly: true }]);
            const file = await openOutputFile(output, 'rejects');
            for (const line of lines) await file.writeLine(line);
            await file.close();
          } catch (e) {
            error = e;
          }
          expect(await readFile(input, 'utf8')).toBe(INPUT);
          expect(await readFile(other, 'utf8')).toBe('precious\n');
          if (refused) {
            expect(error).toBeInstanceOf(MemberctlError);
            expect((error as MemberctlError).category).toBe('usage');
            expect((error as Error).message).toContain(output);
            if (shape === 'other file') expect(await readFile(output, 'utf8')).toBe('old report\n');
          } else if (shape === 'read-only folder' && !isRoot) {
            expect((error as MemberctlError).code).toBe('output-file');
            expect((error as Error).message).toMatch(/EACCES/);
          } else {
            expect(error).toBeUndefined();
            expect(await readFile(output, 'utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
            expect((await stat(output)).mode & 0o777).toBe(0o600);
          }
          // no temp file is ever left behind
          const leftovers = (await readdir(join(output, '..'))).filter((name) => name.includes('memberctl-tmp'));
          expect(leftovers).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses "-" as an output (it would be a file named "-"), and names a file of its own for each flag', async () => {
    const dash = await refusal(checkOutputPaths([], [{ flag: '--output', path: '-' }]));
    expect(dash.message).toBe('--output -: outputs are files, and this would write one named "-"');
    expect(dash.hint).toBe(
      'Give --output a file name (/dev/stdout writes to standard output); a file really named "-" is ./-.',
    );
    const input = join(dir, 'members.csv');
    await writeFile(input, 'memberId\n');
    const hints: (string | undefined)[] = [];
    for (const flag of ['--output', '--rejects', '--report'])
      hints.push((await refusal(checkOutputPaths([input], [{ flag, path: input }]))).hint);
    expect(hints).toEqual([
      'Give --output a file of its own, e.g. members.items.ndjson.',
      'Give --rejects a file of its own, e.g. members.rejects.csv.',
      'Give --report a file of its own, e.g. members.report.json.',
    ]);
  });

  it('refuses two outputs that are one file', async () => {
    const report = join(dir, 'run.json');
    await writeFile(report, '{}');
    const error = await refusal(
      checkOutputPaths(
        [],
        [
          { flag: '--rejects', path: report },
          { flag: '--report', path: report },
        ],
      ),
    );
    expect(error.message).toBe(
      `--report ${report} is the same file as --rejects ${report}: writing it would destroy that file`,
    );
  });

  it('keeps the old file whole until the new one is complete, and aborting leaves it as it was', async () => {
    const path = join(dir, 'report.json');
    await writeOutputFile(path, 'report', 'last night');
    const file = await openOutputFile(path, 'report');
    file.writeLine('half');
    expect(await readFile(path, 'utf8')).toBe('last night\n');
    await file.abort();
    expect(await readFile(path, 'utf8')).toBe('last night\n');
    await writeOutputFile(path, 'report', '{"exitCode":0}\n');
    expect(await readFile(path, 'utf8')).toBe('{"exitCode":0}\n');
    expect((await readdir(dir)).sort()).toEqual(['.report.json.memberctl', 'report.json']);
  });

  it('writes straight into a device (/dev/null) and refuses a folder', async () => {
    await writeOutputFile('/dev/null', 'rejects', 'x');
    expect((await refusal(openOutputFile(dir, 'report'))).message).toBe(`report file ${dir} is a folder`);
  });

  it('a folder that does not exist is said in words, with the code kept for scripts', async () => {
    const path = join(dir, 'no', 'such', 'mapping.json');
    const error = await refusal(writeOutputFile(path, 'mapping', 'x'));
    expect(error.message).toBe(`cannot write mapping file ${path}: ENOENT (its folder does not exist)`);
  });

  it('noClobber refuses an existing file and leaves it', async () => {
    const path = join(dir, 'members.csv');
    await writeFile(path, 'mine');
    expect((await refusal(writeOutputFile(path, 'template', 'x', { noClobber: true }))).code).toBe('output-exists');
    expect(await readFile(path, 'utf8')).toBe('mine');
  });

  it('an output rewritten by every run replaces the file memberctl last wrote there, unchanged, and nothing else', async () => {
    const path = join(dir, 'fix-me.csv');
    await writeOutputFile(path, 'rejects', 'night 1');
    await writeOutputFile(path, 'rejects', 'night 2'); // memberctl's own, unchanged: replaced
    expect(await readFile(path, 'utf8')).toBe('night 2\n');

    await writeFile(path, 'night 2, fixed by hand\n'); // a person's work
    const edited = await refusal(writeOutputFile(path, 'rejects', 'night 3'));
    expect(edited).toMatchObject({ code: 'output-exists', category: 'usage' });
    expect(edited.message).toBe(`rejects file ${path} has changed since memberctl wrote it: it is not replaced`);
    expect(edited.hint).toContain('--force');
    const early = await refusal(checkOutputPaths([], [{ flag: '--rejects', path, ownOnly: true }]));
    expect(early.message).toBe(`--rejects ${path} has changed since memberctl wrote it: it is not replaced`);
    expect(await readFile(path, 'utf8')).toBe('night 2, fixed by hand\n');

    await writeOutputFile(path, 'rejects', 'night 3', { force: true });
    expect(await readFile(path, 'utf8')).toBe('night 3\n');
    await writeOutputFile(path, 'rejects', 'night 4'); // after --force it is memberctl's own again
    expect(await readFile(path, 'utf8')).toBe('night 4\n');
  });

  it('a file memberctl never wrote is not replaced by an output rewritten every run (without --force)', async () => {
    const path = join(dir, 'report.json');
    await writeFile(path, 'someone else');
    const refused = await refusal(writeOutputFile(path, 'report', '{}'));
    expect(refused.message).toBe(
      `report file ${path} exists, and memberctl did not write it (no record .report.json.memberctl beside it): it is not replaced`,
    );
    await expect(checkOutputPaths([], [{ flag: '--report', path, ownOnly: true }])).rejects.toMatchObject({
      code: 'output-exists',
    });
    await checkOutputPaths([], [{ flag: '--report', path, ownOnly: true }], { force: true });
    await checkOutputPaths([], [{ flag: '--journal', path }]); // only outputs rewritten every run are checked
    expect(await readFile(path, 'utf8')).toBe('someone else');
    await writeOutputFile(path, 'report', '{}', { force: true });
    expect(await readFile(path, 'utf8')).toBe('{}\n');
  });

  it('noClobber with force replaces the file (template --out --force)', async () => {
    const path = join(dir, 'members.csv');
    await writeFile(path, 'mine');
    await writeOutputFile(path, 'template', 'x', { noClobber: true, force: true });
    expect(await readFile(path, 'utf8')).toBe('x\n');
  });

  it('removes a temp file a killed process left, and none of a live one', async () => {
    const path = join(dir, 'rejects.csv');
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('exit', () => resolve(child.pid!));
    });
    const stale = `.rejects.csv.memberctl-tmp-${dead}-abcd`;
    const live = `.rejects.csv.memberctl-tmp-${process.pid}-abcd`;
    await writeFile(join(dir, stale), 'half');
    await writeFile(join(dir, live), 'busy');
    await writeOutputFile(path, 'rejects', 'a');
    expect((await readdir(dir)).sort()).toEqual(['.rejects.csv.memberctl', live, 'rejects.csv']);
  });
});
