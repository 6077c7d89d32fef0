import { Command } from 'commander';
import type { CommandResult } from '../program.js';

// TODO(owner of this command): replace this placeholder.
export function importCommand(result: CommandResult): Command {
  return new Command('import').description('(import: not built yet)').action(() => {
    result.exitCode = 1;
  });
}
