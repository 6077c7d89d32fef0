/** What `memberctl config show|check|profiles` do, loaded only when one runs (config.ts declares their flags and help). */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { checkConfiguration, type CheckStatus } from '../../core/config/check.js';
import { withoutUserinfo } from '../../core/connection.js';
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
import { exitCodeFor } from '../exit-codes.js';
import { loadCommandSettings } from '../settings-flags.js';
import { createJsonLog } from '../log-format.js';
import { cliIo } from '../io.js';
import type { CheckOptions, CommonOptions, ProfilesOptions } from './config.js';

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** `config show`: the exit code. */
export function runShow(options: CommonOptions, command: Command): number {
  const output = createOutput();
  const settings = loadCommandSettings(command, 'member');
  const configPath = configLocation(cliIo().env).path;
  if (options.json) output.out(JSON.stringify(showJson(settings, configPath), null, 2));
  else renderShow(settings, configPath, output);
  return exitCodeFor('ok');
}

/** `config check`: the exit code. */
export async function runCheck(options: CheckOptions, command: Command): Promise<number> {
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
  return exitCode;
}

/** `config profiles`: the exit code. */
export async function runProfiles(options: ProfilesOptions): Promise<number> {
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
      baseUrl: typeof profile.baseUrl === 'string' ? withoutUserinfo(profile.baseUrl) : null,
    }));
    output.out(
      JSON.stringify({ configFile: { path: location.path, found: config !== undefined }, profiles: list }, null, 2),
    );
  } else if (profiles.length === 0)
    output.out(`no profiles: ${config ? `${location.path} defines none` : `no config file at ${location.path}`}`);
  else {
    const width = Math.max(...profiles.map(([name]) => name.length)) + 3;
    for (const [name, profile] of profiles) {
      const baseUrl = typeof profile.baseUrl === 'string' ? withoutUserinfo(profile.baseUrl) : undefined;
      const about = [baseUrl, profile.description].filter(Boolean).join('  ');
      output.out(`${isDefault(name) ? '*' : ' '} ${name.padEnd(width)}${output.color.dim(String(about))}`.trimEnd());
    }
  }
  return exitCodeFor('ok');
}

/** A setting as shown: a base URL without the user and password it may carry (refused when used, never printed). */
function shown(key: string, value: unknown): unknown {
  return key === 'baseUrl' && typeof value === 'string' ? withoutUserinfo(value) : value;
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
        {
          value: shown(key, settings.values[key].value) ?? null,
          source: describeProvenance(settings.values[key].source),
        },
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
      value === undefined ? color.dim(SETTING_SPECS[key].whenUnset ?? 'not set') : String(shown(key, value)),
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
