/**
 * What commander itself reports reads like the rest of memberctl: a usage mistake is "error: …" and a hint naming
 * the command's --help; a command's help lists its sub-commands before the global options, and says which
 * options are required. In-process: commander's output is captured, nothing is spawned.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { helpOf } from './help-of.js';

async function usageError(args: string[]): Promise<string> {
  const program = buildProgram({ exitCode: 0 });
  let text = '';
  const capture = (command: Command) => {
    command.configureOutput({ writeErr: (chunk) => void (text += chunk), writeOut: () => undefined });
    command.commands.forEach(capture);
  };
  capture(program);
  await program.parseAsync(['node', 'memberctl', ...args]).catch(() => undefined);
  return text;
}

describe("commander's own messages in memberctl's style", () => {
  it('import with no file: the error, then a hint naming import --help', async () => {
    expect(await usageError(['import'])).toBe(
      "error: missing required argument 'file'\nhint: see `memberctl import --help` for its arguments, flags and examples\n",
    );
  });

  it('a state command without --state names the sub-command whose help to read', async () => {
    expect(await usageError(['state', 'show'])).toBe(
      "error: required option '--state <file>' not specified\nhint: see `memberctl state show --help` for its arguments, flags and examples\n",
    );
  });

  it('config and state help list their commands before the global options', () => {
    for (const path of [['config'], ['state'], ['map']]) {
      const help = helpOf(path);
      expect(help.indexOf('Commands:'), path.join(' ')).toBeGreaterThan(0);
      expect(help.indexOf('Commands:'), path.join(' ')).toBeLessThan(help.indexOf('Global Options:'));
    }
  });

  it("every state sub-command's help marks --state as required", () => {
    for (const sub of ['init', 'show', 'forget', 'reset', 'absent'])
      expect(helpOf(['state', sub])).toMatch(
        /--state <file>\s+the state file given to import --changed-only --state\s+\(required\)/,
      );
  });
});
