/** `memberctl completion bash|zsh|fish`: prints a completion script generated from the program's own commands. */
import { Argument, Command } from 'commander';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { completionModel } from '../completion/model.js';
import { zshScript } from '../completion/zsh.js';
import type { CommandResult } from '../program.js';
import { exitCodeFor } from '../exit-codes.js';
import { cliIo } from '../io.js';

const RENDERERS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionCommand(result: CommandResult): Command {
  return new Command('completion')
    .description('print a shell completion script (commands, options and their choices)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(Object.keys(RENDERERS)))
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl completion bash > ~/.local/share/bash-completion/completions/memberctl
  $ memberctl completion zsh > "\${fpath[1]}/_memberctl"
  $ memberctl completion fish > ~/.config/fish/completions/memberctl.fish`,
    )
    .action((shell: keyof typeof RENDERERS, _options: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      cliIo().stdout.write(RENDERERS[shell](completionModel(root)));
      result.exitCode = exitCodeFor('ok');
    });
}
