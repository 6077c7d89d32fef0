/** `memberctl config show|check`: what settings are in effect and why; is this machine ready to import. */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { checkConfiguration, type CheckStatus } from '../../core/config/check.js';
import {
  configLocation,
  describeProvenance,
  homeOf,
  loadConfigFile,
  SETTING_KEYS,
  SETTING_SPECS,
  type ResolvedSettings,
  type Setting,
  type TokenRef,
} from '../../core/settings/index.js';
import { createOutput, type Output } from '../output.js';
import type { CommandResult } from '../program.js';
import { exitCodeFor, exitCodesHelp } from '../exit-codes.js';
import { loadCommandSettings } from '../settings-flags.js';
import { createJsonLog } from '../log-format.js';
import { cliIo } from '../io.js';

interface CommonOptions {
  json?: boolean;
}

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

export function describeToken(token: Setting<TokenRef> | undefined): string {
  if (!token) return 'not set';
  if (token.value.from === 'env') return `set (from ${token.value.variable})`;
  const missing = existsSync(token.value.path) ? '' : ' — file missing';
  return `set (from token file ${token.value.path}, ${describeProvenance(token.source)})${missing}`;
}

function showJson(settings: ResolvedSettings, configPath: string) {
  return {
    configFile: { path: configPath, found: settings.configFile !== undefined },
    profile: settings.profile
      ? { name: settings.profile.value, source: describeProvenance(settings.profile.source) }
      : null,
    settings: Object.fromEntries(
      SETTING_KEYS.map((key) => [
        key,
        { value: settings.values[key].value ?? null, source: describeProvenance(settings.values[key].source) },
      ]),
    ),
    tokens: {
      member: describeToken(settings.tokens.member),
      push: describeToken(settings.tokens.push),
    },
  };
}

function renderShow(settings: ResolvedSettings, configPath: string, output: Output): void {
  const { color } = output;
  const rows: [string, string, string][] = SETTING_KEYS.map((key) => {
    const { value, source } = settings.values[key];
    return [
      key,
      value === undefined ? color.dim(SETTING_SPECS[key].whenUnset ?? 'not set') : String(value),
      value === undefined ? '' : describeProvenance(source),
    ];
  });
  rows.push(
    ['member token', describeToken(settings.tokens.member), ''],
    ['push token', describeToken(settings.tokens.push), ''],
  );
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  const valueWidth = Math.min(48, Math.max(...rows.map(([, value]) => value.length)) + 2);
  output.out(`config file  ${configPath}${settings.configFile ? '' : color.dim(' (not found: no profiles)')}`);
  output.out(
    `profile      ${settings.profile ? `${settings.profile.value} (from ${describeProvenance(settings.profile.source)})` : color.dim('none')}\n`,
  );
  for (const [name, value, source] of rows)
    output.out(`${name.padEnd(width)}${value.padEnd(valueWidth)}${color.dim(source)}`.trimEnd());
}

function milliseconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number of milliseconds, e.g. 5000');
  return Number(value);
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

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
    .action((options: CommonOptions, command: Command) => {
      const output = createOutput();
      const settings = loadCommandSettings(command, 'member');
      const configPath = configLocation(cliIo().env).path;
      if (options.json) output.out(JSON.stringify(showJson(settings, configPath), null, 2));
      else renderShow(settings, configPath, output);
      result.exitCode = exitCodeFor('ok');
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
    .action(async (options: CommonOptions & { connectTimeout: number; probe: boolean }, command: Command) => {
      const output = createOutput();
      const settings = loadCommandSettings(command, 'member');
      const check = await checkConfiguration({
        settings,
        env: cliIo().env,
        timeoutMs: options.connectTimeout,
        probe: options.probe,
      });
      const exitCode = exitCodeFor(check.category);
      if (options.json) output.out(JSON.stringify({ ...check, exitCode }, null, 2));
      else {
        const { color } = output;
        const paint: Record<CheckStatus, (text: string) => string> = {
          ok: color.green,
          warn: color.yellow,
          fail: color.red,
        };
        for (const line of check.checks) output.out(`${paint[line.status](MARK[line.status])}  ${line.message}`);
        output.out(
          `\nverdict: ${paint[check.verdict === 'not-ready' ? 'fail' : check.verdict === 'ready' ? 'ok' : 'warn'](check.summary)} (exit ${exitCode})`,
        );
        if (check.next) output.out(`next: ${check.next}`);
      }
      // a cron job logs stderr as JSON (the nightly guide): a failed check is an error line there, reason and hint
      if (check.next && (command.optsWithGlobals() as { logFormat?: string }).logFormat === 'json')
        createJsonLog({ context: { command: 'config check' } }).log('error', 'error', {
          code: 'not-ready',
          message: check.summary,
          hint: check.next,
        });
      result.exitCode = exitCode;
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
    .action((options: CommonOptions & { names?: boolean }) => {
      const output = createOutput();
      const location = configLocation(cliIo().env);
      const config = loadConfigFile(location, homeOf(cliIo().env));
      const profiles = Object.entries(config?.data.profiles ?? {});
      const isDefault = (name: string) => config?.data.defaultProfile === name;
      if (options.names) profiles.forEach(([name]) => output.out(name));
      else if (options.json) {
        const list = profiles.map(([name, profile]) => ({
          name,
          default: isDefault(name),
          description: profile.description ?? null,
          baseUrl: profile.baseUrl ?? null,
        }));
        output.out(
          JSON.stringify({ configFile: { path: location.path, found: config !== undefined }, profiles: list }, null, 2),
        );
      } else if (profiles.length === 0)
        output.out(`no profiles: ${config ? `${location.path} defines none` : `no config file at ${location.path}`}`);
      else {
        const width = Math.max(...profiles.map(([name]) => name.length)) + 3;
        for (const [name, profile] of profiles) {
          const about = [profile.baseUrl, profile.description].filter(Boolean).join('  ');
          output.out(
            `${isDefault(name) ? '*' : ' '} ${name.padEnd(width)}${output.color.dim(String(about))}`.trimEnd(),
          );
        }
      }
      result.exitCode = exitCodeFor('ok');
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
