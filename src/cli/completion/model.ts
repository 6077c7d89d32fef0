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

const HELP: CompletionOption = {
  names: ['--help', '-h'],
  long: '--help',
  short: '-h',
  description: 'display help',
  takesValue: false,
};

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

/** What the bash and zsh scripts share: the function name, the command-path patterns, the value cases. */
export interface ShellWalk {
  fn: string;
  /** "parent/path:word" patterns that descend into a sub-command, joined with | */
  descend: string;
  /** One case line per option that takes a value from a list, as the shell's `valueCase` renders it. */
  valueCases: string[];
  /** Every option name that takes a value (its value is not completed as an option). */
  takingValue: Set<string>;
}

/**
 * Walks the model for a case-based shell script. `valueCase(pattern, values)` renders one case: `values` is the
 * list of choices, or a command whose output lists them (profile names).
 */
export function shellWalk(
  model: CompletionModel,
  valueCase: (pattern: string, values: { choices: string[] } | { command: string }) => string,
): ShellWalk {
  const fn = `_${model.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const descend = model.nodes
    .filter((node) => node.path.length > 0)
    .map((node) => `"${node.path.slice(0, -1).join('/')}:${node.path.at(-1)}"`)
    .join('|');
  const valueCases: string[] = [];
  const takingValue = new Set<string>();
  for (const node of model.nodes) {
    for (const option of node.path.length === 0 ? model.globals : node.options) {
      if (!option.takesValue) continue;
      for (const name of option.names) {
        takingValue.add(name);
        if (option.choices) valueCases.push(valueCase(`"${node.path.join('/')}:${name}"`, { choices: option.choices }));
      }
    }
  }
  for (const option of model.globals.filter((o) => o.valuesFrom)) {
    for (const name of option.names) valueCases.push(valueCase(`*":${name}"`, { command: option.valuesFrom! }));
  }
  // Global options with choices apply whatever the command path is.
  for (const option of model.globals.filter((o) => o.takesValue && o.choices)) {
    for (const name of option.names) valueCases.push(valueCase(`*":${name}"`, { choices: option.choices! }));
  }
  return { fn, descend, valueCases, takingValue };
}
