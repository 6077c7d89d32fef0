import { chmod, link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkOutputPaths, openOutputFile, writeOutputFile } from '../../src/io/output-file.js';
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
  | 'new file'
  | 'read-only folder';
const SHAPES: Shape[] = [
  'input itself',
  'hard link to input',
  'symlink to input',
  'symlink to other file',
  'dangling symlink',
  'other file',
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
          ].includes(shape);
          let error: unknown;
          try {
            await checkOutputPaths([input], [{ flag: '--rejects', path: output }]);
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
    await writeFile(path, 'last night\n');
    const file = await openOutputFile(path, 'report');
    file.writeLine('half');
    expect(await readFile(path, 'utf8')).toBe('last night\n');
    await file.abort();
    expect(await readFile(path, 'utf8')).toBe('last night\n');
    await writeOutputFile(path, 'report', '{"exitCode":0}\n');
    expect(await readFile(path, 'utf8')).toBe('{"exitCode":0}\n');
    expect(await readdir(dir)).toEqual(['report.json']);
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
    expect((await readdir(dir)).sort()).toEqual([live, 'rejects.csv']);
  });
});
