/**
 * One exit-code table: every category has its own code, every help text and the README's table take their codes
 * and meanings from src/cli/exit-codes.ts, and no command writes a number of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EXIT_CODES,
  exitCodeFor,
  exitCodesHelp,
  exitCodesMarkdown,
  type ExitCodeCommand,
} from '../../src/cli/exit-codes.js';
import { helpOf } from './help-of.js';
import { importCategory } from '../../src/core/import/index.js';
import type { ImportSummary } from '../../src/core/import/index.js';
import { CredentialsError, InputError, NotConfirmedError, UsageError } from '../../src/errors.js';

const root = join(import.meta.dirname, '..', '..');

describe('the exit-code table', () => {
  it('gives each category its own code, the numbers scripts already rely on', () => {
    const codes = Object.fromEntries(Object.entries(EXIT_CODES).map(([category, row]) => [category, row.code]));
    expect(codes).toEqual({
      ok: 0,
      internal: 1,
      usage: 2,
      partial: 3,
      'not-confirmed': 4,
      credentials: 5,
      cancelled: 130,
    });
  });

  it('maps what errors say became of the run', () => {
    expect(
      [new UsageError('x'), new InputError('x'), new NotConfirmedError('x'), new CredentialsError('x')].map((e) =>
        exitCodeFor(e.category),
      ),
    ).toEqual([2, 2, 4, 5]);
  });

  it('maps an import summary by the worst bucket', () => {
    const clean = { invalid: 0, skipped: 0, rejected: 0, failed: 0 } as unknown as ImportSummary;
    expect(importCategory(clean)).toBe('ok');
    expect(importCategory({ ...clean, rejected: 1 })).toBe('partial');
    expect(importCategory({ ...clean, rejected: 1, failed: 1 })).toBe('not-confirmed');
    expect(importCategory({ ...clean, stopReason: 'interrupted' })).toBe('not-confirmed');
    expect(importCategory({ ...clean, failed: 1, inputError: new InputError('x') })).toBe('usage');
    expect(importCategory({ ...clean, failed: 1, stopReason: 'credentials' })).toBe('credentials');
  });

  it('is what every --help lists, and no help writes exit codes of its own', () => {
    const helps: [string[], ExitCodeCommand][] = [
      [[], 'memberctl'],
      [['import'], 'import'],
      [['validate'], 'validate'],
      [['subscribe'], 'subscribe'],
      [['config', 'check'], 'config check'],
    ];
    for (const [path, name] of helps) {
      const help = helpOf(path);
      expect(help).toContain(exitCodesHelp(name));
      expect(help.split('Exit codes').length, `memberctl ${path.join(' ')} --help`).toBe(2);
    }
    // subscribe lists 130 too: the codes are right-aligned so the meanings line up
    expect(exitCodesHelp('subscribe')).toMatch(
      /^Exit codes:\n {4}0 {2}subscribed\n[\s\S]*\n {2}130 {2}Ctrl-C at a prompt \(nothing sent\)$/,
    );
    expect(exitCodesHelp('import')).toBe(
      'Exit codes:\n    0  every record imported or updated (or unchanged)\n    2  usage error or unreadable input\n    3  some invalid, skipped or rejected, none failed\n    4  some not confirmed (safe to run again)\n    5  credentials refused\n  130  Ctrl-C while waiting for the input (nothing sent)',
    );
  });

  it("is the README's table", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Exit codes'));
    const table = section.split('\n').filter((line) => line.startsWith('|'));
    expect(table.slice(0, exitCodesMarkdown().split('\n').length).join('\n')).toBe(exitCodesMarkdown());
  });

  it('is the only place in src/cli that names an exit-code number', () => {
    const dir = join(root, 'src', 'cli', 'commands');
    const offenders = readdirSync(dir).filter((file) =>
      /exitCode\s*=\s*\d|ExitCode\./.test(readFileSync(join(dir, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
