/**
 * Bridges commander and settings resolution: only values typed on the command line count as flags (never
 * commander defaults, which would hide the profile), and `--token-file` means the token of the command's area.
 */
import type { Command } from 'commander';
import { loadSettings, type ResolvedSettings, type SettingValues, type TokenArea } from '../core/settings/index.js';
import { cliIo } from './io.js';

/** commander's attribute name → setting, for options that commands may define under these names. */
const OPTION_TO_SETTING: Record<string, keyof SettingValues> = {
  baseUrl: 'baseUrl',
  batchSize: 'batchSize',
  maxBatchBytes: 'maxBatchBytes',
  concurrency: 'concurrency',
  retries: 'retries',
  timeout: 'timeoutMs',
  timeoutMs: 'timeoutMs',
  maxRetryAfter: 'maxRetryAfter',
  allowInsecureHttp: 'allowInsecureHttp',
};

const INT_SETTINGS = new Set<keyof SettingValues>([
  'batchSize',
  'maxBatchBytes',
  'concurrency',
  'retries',
  'timeoutMs',
]);

export function settingsFlags(command: Command, area: TokenArea): Partial<SettingValues> {
  const options = command.optsWithGlobals() as Record<string, unknown>;
  const typed = (key: string) => command.getOptionValueSourceWithGlobals(key) === 'cli' && options[key] !== undefined;
  const flags: Record<string, unknown> = {};
  for (const [option, setting] of Object.entries(OPTION_TO_SETTING)) {
    if (!typed(option)) continue;
    const value = options[option];
    // Commands may or may not give commander a number parser; resolution validates the number either way.
    flags[setting] =
      INT_SETTINGS.has(setting) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  }
  if (typed('tokenFile')) flags[area === 'member' ? 'tokenFile' : 'pushTokenFile'] = options.tokenFile;
  if (typed('pushTokenFile')) flags.pushTokenFile = options.pushTokenFile;
  return flags as Partial<SettingValues>;
}

/** The global --profile, if given. */
export function profileFlag(command: Command): string | undefined {
  const profile = (command.optsWithGlobals() as { profile?: unknown }).profile;
  return typeof profile === 'string' ? profile : undefined;
}

/** One call for a command's action: config file + profile + flags + environment, with provenance. */
export function loadCommandSettings(
  command: Command,
  area: TokenArea,
  env: NodeJS.ProcessEnv = cliIo().env,
): ResolvedSettings {
  return loadSettings({ flags: settingsFlags(command, area), profile: profileFlag(command), env });
}
