/** `import --help` in groups (input, target, sending, resume and sync, output), as gh and the sf CLI show theirs. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { helpOf } from './help-of.js';

function importCommand(): Command {
  return buildProgram({ exitCode: 0 }).commands.find((command) => command.name() === 'import')!;
}

describe('import --help', () => {
  it('shows its options in five groups, in the order a run needs them', () => {
    const headings = helpOf(['import'])
      .split('\n')
      .filter((line) => /^[A-Z][\w ]*:$/.test(line));
    expect(headings).toEqual([
      'Arguments:',
      'Input options:',
      'Target options:',
      'Sending options:',
      'Resume and sync options:',
      'Output options:',
      'Options:',
      'Global Options:',
      'Examples:',
      'Exit codes:',
    ]);
  });

  it('leaves no option of its own ungrouped (a new flag must say where it belongs)', () => {
    const ungrouped = importCommand()
      .options.filter((option) => !option.helpGroupHeading)
      .map((option) => option.flags);
    expect(ungrouped).toEqual([]);
  });
});
