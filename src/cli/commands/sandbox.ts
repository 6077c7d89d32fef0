import { Command } from 'commander';
import type { CommandResult } from '../program.js';

// TODO(owner of this command): replace this placeholder.
export function sandboxCommand(result: CommandResult): Command {
  return new Command('sandbox').description('(sandbox: not built yet)').action(() => {
    result.exitCode = 1;
  });
}
