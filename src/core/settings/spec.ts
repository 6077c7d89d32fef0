/**
 * The settings a profile, the environment or a flag can set: one table, so the config file's schema, the
 * environment variables, `config show` and the precedence rules cannot disagree about what exists. No schema
 * here (setting-schemas.ts, keyed by the same names): the help texts that name the settings load no zod.
 */

/** The most --max-retry-after may be: a week (one run waiting longer is a run nobody watches any more). */
export const MAX_RETRY_AFTER_LIMIT_MS = 7 * 86_400_000;

/** Values after resolution. Paths are absolute (a profile's `~` and relative paths are already expanded). */
export interface SettingValues {
  baseUrl?: string;
  /** File whose first line is the member area's JWT. */
  tokenFile?: string;
  /** File whose first line is the push area's opaque token. */
  pushTokenFile?: string;
  batchSize: number;
  maxBatchBytes: number;
  concurrency: number;
  retries: number;
  timeoutMs: number;
  /** The longest Retry-After an import waits, as written ("5m", "2h", "1d", or seconds); longer stops the run. */
  maxRetryAfter: string;
  allowInsecureHttp: boolean;
}
export type SettingKey = keyof SettingValues;

/** Each setting's schema is in setting-schemas.ts (with zod, which `--help` need not load). */
interface SettingSpec {
  /** Environment variable that sets it (tokens are not here: MEMBERCTL_TOKEN holds a token, not a path). */
  env?: string;
  /** The command-line flag, for messages. */
  flag: string;
  description: string;
  kind: 'string' | 'path' | 'int' | 'boolean';
  /** An int's unit, named in the hint for a bad value ("a whole number of milliseconds"). */
  unit?: string;
  /** What happens when it is set nowhere and has no default ("not set" otherwise). */
  whenUnset?: string;
}

export const SETTING_SPECS: Record<SettingKey, SettingSpec> = {
  baseUrl: {
    env: 'MEMBERCTL_BASE_URL',
    flag: '--base-url',
    description: 'API base URL (member and push paths are relative to it)',
    kind: 'string',
  },
  tokenFile: {
    flag: '--token-file',
    description: 'file holding the member token (JWT) on its first line',
    kind: 'path',
  },
  pushTokenFile: {
    flag: '--token-file (subscribe)',
    description: 'file holding the push token on its first line',
    kind: 'path',
  },
  batchSize: {
    env: 'MEMBERCTL_BATCH_SIZE',
    flag: '--batch-size',
    description: 'records per import request',
    kind: 'int',
  },
  maxBatchBytes: {
    env: 'MEMBERCTL_MAX_BATCH_BYTES',
    flag: '--max-batch-bytes',
    description: 'JSON bytes per import request',
    kind: 'int',
    unit: 'bytes',
  },
  concurrency: {
    env: 'MEMBERCTL_CONCURRENCY',
    flag: '--concurrency',
    description: 'import requests in flight at once',
    kind: 'int',
    whenUnset: 'adapts to the server (up to --max-concurrency, 32)',
  },
  retries: {
    env: 'MEMBERCTL_RETRIES',
    flag: '--retries',
    description: 'retries of a request after 429, 5xx, timeouts and connection errors',
    kind: 'int',
  },
  timeoutMs: {
    env: 'MEMBERCTL_TIMEOUT',
    flag: '--timeout',
    description: 'milliseconds to wait for one response',
    kind: 'int',
    unit: 'milliseconds',
  },
  maxRetryAfter: {
    env: 'MEMBERCTL_MAX_RETRY_AFTER',
    flag: '--max-retry-after',
    description: 'the longest Retry-After an import waits; a server asking for more stops the run (exit 4)',
    kind: 'string',
  },
  allowInsecureHttp: {
    flag: '--allow-insecure-http',
    description: 'allow plain http:// to a host other than loopback',
    kind: 'boolean',
  },
};

export const SETTING_KEYS = Object.keys(SETTING_SPECS) as SettingKey[];

/** Defaults, named in one place (issue 4's figures); import and subscribe take them from here. */
export const SETTING_DEFAULTS = {
  batchSize: 500,
  maxBatchBytes: 1024 * 1024,
  retries: 5,
  timeoutMs: 30_000,
  maxRetryAfter: '5m',
  allowInsecureHttp: false,
} as const satisfies Partial<SettingValues>;

/** The environment variables that hold tokens themselves (never written anywhere). */
export const TOKEN_ENV = { member: 'MEMBERCTL_TOKEN', push: 'MEMBERCTL_PUSH_TOKEN' } as const;
export const PROFILE_ENV = 'MEMBERCTL_PROFILE';
export const CONFIG_ENV = 'MEMBERCTL_CONFIG';
