/**
 * The reference in docs/ keeps up with the program: every command and every long flag that `--help` shows is
 * named somewhere in README.md or docs/ (read from commander's own definitions, in-process: no spawn).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { helpOf } from './help-of.js';

const root = join(import.meta.dirname, '..', '..');

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdown(join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [readFileSync(join(dir, entry.name), 'utf8')]
        : [],
  );
}

function commands(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return [{ path, command }, ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()]))];
}

describe('the reference in docs/', () => {
  const docs = [readFileSync(join(root, 'README.md'), 'utf8'), ...markdown(join(root, 'docs'))].join('\n');
  const all = commands(buildProgram({ exitCode: 0 }));

  it('names every command', () => {
    const missing = all
      .filter(({ path }) => path.length > 0 && !docs.includes(`memberctl ${path.join(' ')}`))
      .map(({ path }) => path.join(' '));
    expect(missing).toEqual([]);
  });

  it('names every long flag of every command', () => {
    const missing = all.flatMap(({ path, command }) =>
      command.options
        .filter((option) => option.long && !docs.includes(option.long))
        .map((option) => `memberctl ${path.join(' ')} ${option.long}`),
    );
    expect(missing, 'document these flags in docs/reference/ (or the guide or page that owns them)').toEqual([]);
  });
});

describe('the docs that help texts and hints name', () => {
  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [readFileSync(join(dir, entry.name), 'utf8')]
          : [],
    );
  }

  it('exist, and ship in the npm package (package.json "files"), so an installed memberctl has them too', () => {
    const named = new Set(sources(join(root, 'src')).flatMap((text) => text.match(/\bdocs\/[\w/.-]+\.md/g) ?? []));
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((path) => !existsSync(join(root, path)))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('docs');
    expect(helpOf([])).toContain(`Documentation: ${join(root, 'docs')}/`);
  });
});
