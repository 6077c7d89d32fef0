/**
 * Where requests go and with which credential: base URL and bearer token, resolved once per command.
 * The token is read here and handed to the HTTP adapter; it never travels in error messages or events.
 */
import { readFile, stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { describeProvenance, loadSettings, type ResolvedSettings } from './settings/index.js';

export type ApiArea = 'member' | 'push';

export interface ConnectionOptions {
  area: ApiArea;
  /** --base-url, already preferred over the environment by the caller when given. */
  baseUrl?: string;
  tokenFile?: string;
  allowInsecureHttp?: boolean;
  env?: NodeJS.ProcessEnv;
  /** --profile NAME (else MEMBERCTL_PROFILE, else the config file's defaultProfile). */
  profile?: string;
  /**
   * Settings already resolved by the caller (loadSettings); then baseUrl/tokenFile/allowInsecureHttp above are
   * ignored. Without it, they count as flags and the profile and environment fill in the rest.
   */
  settings?: ResolvedSettings;
}

export interface Connection {
  baseUrl: URL;
  token: string;
  /** Where the token came from, for messages ("MEMBERCTL_TOKEN", "--token-file /path"). Never the token. */
  tokenSource: string;
  warnings: string[];
}

const TOKEN_ENV: Record<ApiArea, string> = { member: 'MEMBERCTL_TOKEN', push: 'MEMBERCTL_PUSH_TOKEN' };

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A URL as it may be shown: user and password (refused when the URL is used; a token, often) masked, even in a URL
 * that does not parse.
 */
export function withoutUserinfo(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

export function parseBaseUrl(raw: string, allowInsecureHttp = false): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`base URL "${withoutUserinfo(raw)}" is not a valid URL`, {
      hint: 'use a full URL such as https://api.example.com',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`base URL must be http:// or https://, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new UsageError('base URL must not carry credentials', {
      hint: 'put the token in MEMBERCTL_TOKEN or --token-file',
    });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    throw new UsageError(`refusing to send a bearer token over plain http:// to ${url.hostname}`, {
      hint: 'use https://, or pass --allow-insecure-http if this network is trusted',
    });
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** Reads the first line of a token file, warning when others can read it. */
export async function readTokenFile(path: string): Promise<{ token: string; warnings: string[] }> {
  const warnings: string[] = [];
  let text: string;
  try {
    const info = await stat(path);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      warnings.push(
        `token file ${path} is readable by group or others (mode ${(info.mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read token file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
      hint: 'check the path given to --token-file',
    });
  }
  const token = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (!token) throw new UsageError(`token file ${path} is empty`, { hint: 'its first line must be the access token' });
  return { token, warnings };
}

/**
 * A bearer token travels in an HTTP header, which carries visible ASCII only: a token with a control character,
 * a space or an accent cannot be sent at all, so it is a usage error now (naming the place, never the token)
 * rather than a request that fails and is retried.
 */
export function checkTokenCharacters(token: string, source: string): void {
  const at = [...token].findIndex((char) => char < '!' || char > '~');
  if (at === -1) return;
  const code = token.codePointAt([...token].slice(0, at).join('').length)!;
  throw new UsageError(
    `bad token in ${source}: character ${at + 1} is U+${code.toString(16).toUpperCase().padStart(4, '0')}, which an HTTP header cannot carry`,
    {
      code: 'bad-token',
      hint: 'copy the token again: it is printable ASCII with no spaces, line breaks or accents (a token file holds it on its first line)',
    },
  );
}

export async function resolveConnection(options: ConnectionOptions): Promise<Connection> {
  const env = options.env ?? process.env;
  const settings =
    options.settings ??
    loadSettings({
      env,
      profile: options.profile,
      flags: {
        baseUrl: options.baseUrl,
        [options.area === 'member' ? 'tokenFile' : 'pushTokenFile']: options.tokenFile,
        // A boolean flag that was not given arrives as false: only `true` is a choice the user made.
        allowInsecureHttp: options.allowInsecureHttp ? true : undefined,
      },
    });
  const rawUrl = settings.values.baseUrl.value;
  if (!rawUrl) {
    throw new UsageError('no base URL: nothing to send to', {
      code: 'no-base-url',
      hint: 'set MEMBERCTL_BASE_URL, pass --base-url URL or use a profile (--profile NAME); or try it locally with --sandbox',
    });
  }
  const baseUrl = parseBaseUrl(rawUrl, settings.values.allowInsecureHttp.value);
  const envName = TOKEN_ENV[options.area];
  const tokenRef = settings.tokens[options.area];
  if (tokenRef?.value.from === 'file') {
    const { path } = tokenRef.value;
    const { token, warnings } = await readTokenFile(path);
    checkTokenCharacters(token, `token file ${path}`);
    const tokenSource =
      tokenRef.source.kind === 'flag'
        ? `--token-file ${path}`
        : `token file ${path} (${describeProvenance(tokenRef.source)})`;
    return { baseUrl, token, tokenSource, warnings };
  }
  const token = env[envName]?.trim();
  if (token) checkTokenCharacters(token, envName);
  if (!token) {
    throw new UsageError(`no ${options.area} token`, {
      code: 'no-token',
      hint: `set ${envName}, pass --token-file FILE (a file whose first line is the token) or set ${options.area === 'member' ? 'tokenFile' : 'pushTokenFile'} in a profile`,
    });
  }
  return { baseUrl, token, tokenSource: envName, warnings: [] };
}
