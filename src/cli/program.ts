/** Assembles the commander program: global options and one sub-command per file. */
import { packageDocs, packageVersion } from '../version.js';
import { Command, Help, Option } from 'commander';
import { validateCommand } from './commands/validate.js';
import { importCommand } from './commands/import.js';
import { subscribeCommand } from './commands/subscribe.js';
import { sandboxCommand } from './commands/sandbox.js';
import { configCommand } from './commands/config.js';
import { templateCommand } from './commands/template.js';
import { completionCommand } from './commands/completion.js';
import { stateCommand } from './commands/state.js';
import { mapCommand } from './commands/map.js';
import { createJsonLog, logFormatFromArgv } from './log-format.js';
import { useGlobalOutputFlags } from './output.js';
import { exitCodesHelp } from './exit-codes.js';
import { cliIo } from './io.js';

/** Commands write their exit code here; only main.ts ends the process with it. */
export interface CommandResult {
  exitCode: number;
}

export function buildProgram(result: CommandResult): Command {
  const program = new Command('memberctl')
    .description('Import member records into the member API in batches, and subscribe devices to push notifications.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showSuggestionAfterError(true)
    .exitOverride()
    // Global options: accepted before or after the command name (`memberctl import f.csv --profile prod`).
    .option('--profile <name>', 'settings profile from the config file (else MEMBERCTL_PROFILE, else defaultProfile)')
    .addOption(
      new Option('--log-format <format>', 'stderr as human text, or one JSON event per line (for cron)').choices([
        'text',
        'json',
      ]),
    )
    .option('--no-color', 'no colors in output (NO_COLOR is honoured too)')
    .hook('preAction', (root) => {
      // --no-color reaches every command's output here; --profile and --log-format are read through
      // commander (optsWithGlobals), never passed on through process.env or re-read from process.argv.
      const globals = root.opts() as { color?: boolean };
      useGlobalOutputFlags({ noColor: globals.color === false });
    })
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl validate members.csv                      check a file locally, no network
  $ memberctl import members.csv --sandbox              try an import against a local sandbox
  $ memberctl import members.csv --profile prod         settings from ~/.config/memberctl/config.json (see config --help)

Documentation: ${packageDocs()} (the docs/… files that help texts and hints name)

${exitCodesHelp('memberctl')}`,
    );
  const commands = [
    validateCommand,
    importCommand,
    subscribeCommand,
    sandboxCommand,
    configCommand,
    templateCommand,
    completionCommand,
    stateCommand,
    mapCommand,
  ];
  for (const command of commands) {
    program.addCommand(command(result).exitOverride());
  }
  // A usage mistake commander catches (a missing FILE, an unknown flag) reads as memberctl's own: "error: …" and a
  // hint naming the command's --help; with --log-format json every stderr line is JSON, usage errors included.
  // (addCommand does not pass output settings down, hence the walk.)
  const outputError = (name: string) => (message: string, write: (text: string) => void) => {
    const hint = `see \`${name} --help\` for its arguments, flags and examples`;
    if (logFormatFromArgv(cliIo().argv) === 'json')
      createJsonLog({ write }).log('error', 'usage-error', {
        code: 'usage',
        message: message.trim().replace(/\n/g, ' '),
        hint: `${hint[0]!.toUpperCase()}${hint.slice(1)}.`,
      });
    else write(`${message.endsWith('\n') ? message : `${message}\n`}hint: ${hint}\n`);
  };
  const configure = (command: Command, name: string) => {
    // commander writes help, --version and usage errors itself: to this run's streams, not always the process's
    const { stdout, stderr } = cliIo();
    command.configureOutput({
      outputError: outputError(name),
      writeOut: (text) => void stdout.write(text),
      writeErr: (text) => void stderr.write(text),
      getOutHelpWidth: () => (stdout.isTTY && stdout.columns) || 80, // commander's own choice, for this run's streams
      getErrHelpWidth: () => (stderr.isTTY && stderr.columns) || 80,
    });
    // Each command's --help also lists --profile, --log-format and --no-color, after its own commands.
    command.configureHelp({
      showGlobalOptions: true,
      formatHelp: (cmd, helper) => commandsBeforeGlobalOptions(Help.prototype.formatHelp.call(helper, cmd, helper)),
    });
    for (const sub of command.commands) configure(sub, `${name} ${sub.name()}`);
  };
  configure(program, 'memberctl');
  return program;
}

/**
 * commander lists a command's global options before its sub-commands ("Global Options:", then "Commands:"); what
 * the command itself offers comes first, so the Commands section is moved up, before the Global Options.
 */
function commandsBeforeGlobalOptions(text: string): string {
  const lines = text.split('\n');
  const globals = lines.indexOf('Global Options:');
  const commands = lines.indexOf('Commands:');
  if (globals < 0 || commands < globals) return text;
  return [...lines.slice(0, globals), ...lines.slice(commands), ...lines.slice(globals, commands)].join('\n');
}
