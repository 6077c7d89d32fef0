/**
 * Settings: one call for every command that talks to the API. It finds and validates the config file, picks the
 * profile and resolves each setting with its provenance (flag > env > profile > default).
 */
import { loadConfigFile } from './config-file.js';
import { configLocation, homeOf } from './location.js';
import { resolveSettings, type ResolvedSettings } from './resolve.js';
import type { SettingValues } from './spec.js';

export * from './spec.js';
export * from './resolve.js';
export { configLocation, homeOf, type ConfigLocation } from './location.js';
export {
  loadConfigFile,
  configFileSchema,
  profileSchema,
  type ConfigFile,
} from './config-file.js';

export interface LoadSettingsOptions {
  /** Only values the user typed on the command line (see src/cli/settings-flags.ts). */
  flags?: Partial<SettingValues>;
  /** --profile NAME */
  profile?: string;
  env?: NodeJS.ProcessEnv;
  /** Home folder, for tests. */
  home?: string;
}

export function loadSettings(options: LoadSettingsOptions = {}): ResolvedSettings {
  const env = options.env ?? process.env;
  const home = options.home ?? homeOf(env);
  const location = configLocation(env, home);
  const config = loadConfigFile(location, home);
  return resolveSettings({
    flags: options.flags,
    profileFlag: options.profile,
    env,
    config,
    configPath: location.path,
  });
}
