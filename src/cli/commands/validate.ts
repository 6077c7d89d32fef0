import { Command } from 'commander';
import type { CommandResult } from '../program.js';

// TODO(owner of this command): replace this placeholder.
export function validateCommand(result: CommandResult): Command {
  return new Command('validate').description('(validate: not built yet)').action(() => {
    result.exitCode = 1;
  });
}
