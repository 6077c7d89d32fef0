/**
 * Every token the settings know of, read only to be masked: the tokens in MEMBERCTL_TOKEN and
 * MEMBERCTL_PUSH_TOKEN, and the first line of each token file a profile of the config file names (any profile:
 * `memberctl validate prod.token` must not print the token a cron job's profile reads). Nothing here fails: a
 * missing or broken config file, a token file that cannot be read, is simply no token to mask (the command that
 * needs them says what is wrong). The config is read as plain JSON, without its schema: every run does this.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { configLocation, homeOf, tokenFilePath } from './location.js';
import { TOKEN_ENV } from './spec.js';

/** A token file's first line fits in this by far; a larger file named by mistake costs no more than this. */
const TOKEN_FILE_READ_BYTES = 16 * 1024;

/** The tokens of the environment and of the token files the config file's profiles name. */
export function tokensNamedBySettings(env: NodeJS.ProcessEnv): string[] {
  const home = homeOf(env);
  const fromEnv = Object.values(TOKEN_ENV).map((variable) => env[variable]?.trim());
  const configPath = configLocation(env, home).path;
  const files = profileTokenFiles(configPath).map((written) => tokenFilePath(configPath, written, home));
  return [...fromEnv, ...files.map(firstLineOf)].filter((token): token is string => Boolean(token));
}

/** The tokenFile and pushTokenFile values as written in every profile; none when the file is not JSON. */
function profileTokenFiles(configPath: string): string[] {
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(configPath, 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    return [];
  }
  const profiles = (config as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null) return [];
  return Object.values(profiles).flatMap((profile: unknown) =>
    ['tokenFile', 'pushTokenFile']
      .map((key) => (profile as Record<string, unknown> | null)?.[key])
      .filter((path): path is string => typeof path === 'string' && path !== ''),
  );
}

/**
 * The first line of a regular file, as readTokenFile reads it (trimmed), or undefined. A FIFO or a device is not
 * even opened (opening a FIFO would release its writer): `--token-file <(pass show api)` can be read once only, by
 * the command that needs it, which makes its token known then.
 */
export function firstLineOf(path: string): string | undefined {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return undefined;
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(TOKEN_FILE_READ_BYTES);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, length).split(/\r?\n/, 1)[0]?.trim() || undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
