import { Command } from 'commander';
import type { CommandResult } from '../program.js';

// TODO(owner of this command): replace this placeholder.
export function subscribeCommand(result: CommandResult): Command {
  return new Command('subscribe').description('(subscribe: not built yet)').action(() => {
    result.exitCode = 1;
  });
}
