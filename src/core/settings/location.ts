/**
 * Where the config file lives and where a profile's token file is, without loading the config's schema (zod):
 * the masking of known tokens reads them on every run, `--help` included (settings/known-tokens.ts).
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CONFIG_ENV } from './spec.js';

export interface ConfigLocation {
  path: string;
  /** True when MEMBERCTL_CONFIG named it: then a missing file is an error, not "no profiles". */
  explicit: boolean;
}

/** The home folder as this environment has it: $HOME, as os.homedir() reads it for the process's own. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** MEMBERCTL_CONFIG, else $XDG_CONFIG_HOME/memberctl/config.json (when absolute, as the XDG spec says), else ~/.config/... */
export function configLocation(env: NodeJS.ProcessEnv, home = homeOf(env)): ConfigLocation {
  const named = env[CONFIG_ENV];
  if (named) return { path: resolve(expandHome(named, home)), explicit: true };
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
  return { path: join(base, 'memberctl', 'config.json'), explicit: false };
}

export function expandHome(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path;
}

/** A profile's tokenFile as written → the file: relative means "next to the config file"; ~ means the home folder. */
export function tokenFilePath(configPath: string, written: string, home: string): string {
  return resolve(dirname(configPath), expandHome(written, home));
}
