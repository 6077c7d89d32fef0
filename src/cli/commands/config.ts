/** `memberctl config show|check`: what settings are in effect and why; is this machine ready to import. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { SETTING_SPECS } from '../../core/settings/spec.js';
import type { CommandResult } from '../program.js';
import { exitCodesHelp } from '../exit-codes.js';

export interface CommonOptions {
  json?: boolean;
}
export type CheckOptions = CommonOptions & { connectTimeout: number; probe: boolean };
export type ProfilesOptions = CommonOptions & { names?: boolean };

/** The sending settings import takes as flags: `config show` and `check` take them too, to try one before a profile. */
const SENDING_SETTINGS = [
  'batchSize',
  'maxBatchBytes',
  'concurrency',
  'retries',
  'timeoutMs',
  'maxRetryAfter',
] as const;

function addConnectionOptions(command: Command): Command {
  command
    .option('--base-url <url>', 'API base URL (else MEMBERCTL_BASE_URL, else the profile)')
    .option('--token-file <file>', 'file holding the member token (else MEMBERCTL_TOKEN, else the profile)')
    .option('--push-token-file <file>', 'file holding the push token (else MEMBERCTL_PUSH_TOKEN, else the profile)')
    .option('--allow-insecure-http', 'allow plain http:// to a host other than loopback');
  for (const key of SENDING_SETTINGS) {
    const spec = SETTING_SPECS[key];
    command.option(`${spec.flag} <${spec.kind === 'int' ? 'n' : 'value'}>`, `${spec.description} (as import takes it)`);
  }
  return command.option('--json', 'print one JSON object on stdout');
}

function milliseconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number of milliseconds, e.g. 5000');
  return Number(value);
}

function showCommand(result: CommandResult): Command {
  return addConnectionOptions(new Command('show'))
    .description('print the effective settings and where each came from (flag, env, profile, default)')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl config show                        settings from the default profile, env and defaults
  $ memberctl config show --profile staging      what an import with --profile staging would use
  $ MEMBERCTL_BATCH_SIZE=100 memberctl config show --json`,
    )
    .action(async (options: CommonOptions, command: Command) => {
      const { runShow } = await import('./config-run.js');
      result.exitCode = runShow(options, command);
    });
}

function checkCommand(result: CommandResult): Command {
  return addConnectionOptions(new Command('check'))
    .description(
      'check that memberctl can import: settings, DNS/TCP/TLS to the base URL, tokens (expiry, file permissions)',
    )
    .addOption(
      new Option('--connect-timeout <ms>', 'give up on each network step after this many milliseconds')
        .default(5000)
        .argParser(milliseconds),
    )
    .option('--no-probe', 'do not send the credentials probe (a POST of an empty batch, which cannot write)')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl config check                           check the default profile
  $ memberctl config check --profile prod --json     for scripts and monitoring
  $ memberctl config check --base-url https://api.example.com --token-file ~/.config/memberctl/prod.token

${exitCodesHelp('config check')}`,
    )
    .action(async (options: CheckOptions, command: Command) => {
      const { runCheck } = await import('./config-run.js');
      result.exitCode = await runCheck(options, command);
    });
}

function profilesCommand(result: CommandResult): Command {
  return new Command('profiles')
    .description('list the profiles of the config file (the default one marked *)')
    .option('--names', 'only the names, one per line (for scripts and shell completion)')
    .option('--json', 'print one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl config profiles
  $ memberctl config profiles --names | xargs -n1 memberctl config check --profile`,
    )
    .action(async (options: ProfilesOptions) => {
      const { runProfiles } = await import('./config-run.js');
      result.exitCode = await runProfiles(options);
    });
}

export function configCommand(result: CommandResult): Command {
  return new Command('config')
    .description(
      'show the effective settings, or check that they work (profiles live in ~/.config/memberctl/config.json)',
    )
    .addHelpText(
      'after',
      `
Config file: $MEMBERCTL_CONFIG, else $XDG_CONFIG_HOME/memberctl/config.json, else ~/.config/memberctl/config.json
  {"defaultProfile": "staging",
   "profiles": {"staging": {"baseUrl": "https://staging.example.com", "tokenFile": "~/.config/memberctl/staging.token",
                            "batchSize": 500, "concurrency": 4}}}
Precedence: flag > environment > profile > default. Tokens are never stored in the file, only tokenFile paths.

Examples:
  $ memberctl config show
  $ memberctl --profile staging config check`,
    )
    .addCommand(showCommand(result).exitOverride())
    .addCommand(checkCommand(result).exitOverride())
    .addCommand(profilesCommand(result).exitOverride());
}
