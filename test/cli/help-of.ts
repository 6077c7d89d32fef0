import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';

/** The help text exactly as `memberctl <path> --help` prints it, rendered in-process (one spawn per command is slow). */
export function helpOf(path: string[]): string {
  let command: Command = buildProgram({ exitCode: 0 });
  for (const name of path) command = command.commands.find((sub) => sub.name() === name)!;
  let text = '';
  command.configureOutput({ writeOut: (chunk) => void (text += chunk) });
  command.outputHelp();
  return text;
}
