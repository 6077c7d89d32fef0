/**
 * What a shell needs to complete memberctl, read from the commander program itself (so a new command or flag
 * is completed without anyone touching the scripts): each command path, its sub-commands and its options.
 */
import type { Command, Option } from 'commander';

export interface CompletionOption {
  /** Long and short spellings, e.g. ["--format", "-f"]. */
  names: string[];
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  choices?: string[];
  /** A shell command whose output lines are the values (e.g. profile names read from the config file). */
  valuesFrom?: string;
}

export interface CompletionNode {
  /** Sub-command names from the root, e.g. [] for memberctl, ["config", "show"]. */
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  /** This command's own options (global ones are in `globals`). */
  options: CompletionOption[];
}

export interface CompletionModel {
  name: string;
  /** Options of the root program: accepted after any command too. */
  globals: CompletionOption[];
  nodes: CompletionNode[];
}

function toOption(option: Option): CompletionOption {
  return {
    names: [option.long, option.short].filter((name): name is string => Boolean(name)),
    long: option.long,
    short: option.short,
    description: option.description,
    takesValue: option.required || option.optional,
    choices: option.argChoices,
  };
}

const HELP: CompletionOption = { names: ['--help', '-h'], long: '--help', short: '-h', description: 'display help', takesValue: false };

function visibleOptions(command: Command): CompletionOption[] {
  return [...command.options.filter((option) => !option.hidden).map(toOption), HELP];
}

export function completionModel(program: Command): CompletionModel {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[]) => {
    const subcommands = command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
    nodes.push({
      path,
      description: command.description(),
      subcommands: subcommands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: path.length === 0 ? [] : visibleOptions(command),
    });
    for (const sub of subcommands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  const globals = visibleOptions(program);
  // Profile names live in the user's config file: ask memberctl itself at completion time.
  const profile = globals.find((option) => option.long === '--profile');
  if (profile && nodes.some((node) => node.path.join(' ') === 'config profiles')) {
    profile.valuesFrom = `${program.name()} config profiles --names 2>/dev/null`;
  }
  return { name: program.name(), globals, nodes };
}

/** First line of a description, short enough for a completion menu. */
export function shortDescription(text: string): string {
  const first = text.split('\n')[0] ?? '';
  return first.length > 70 ? `${first.slice(0, 67)}...` : first;
}

/** Quote for any POSIX-like shell: single quotes, with embedded ones closed, escaped and reopened. */
export function singleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
