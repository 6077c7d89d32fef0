/**
 * The settings a profile, the environment or a flag can set: one table, so the config file's schema, the
 * environment variables, `config show` and the precedence rules cannot disagree about what exists.
 */
import { z } from 'zod';
import { parseDuration } from '../../duration.js';

/** The most --max-retry-after may be: a week (one run waiting longer is a run nobody watches any more). */
export const MAX_RETRY_AFTER_LIMIT_MS = 7 * 86_400_000;

const positiveInt = (max: number) => z.number().int().min(1).max(max);

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

interface SettingSpec {
  /** The value's schema, shared by the config file and by values given as text (env). */
  schema: z.ZodType;
  /** Environment variable that sets it (tokens are not here: MEMBERCTL_TOKEN holds a token, not a path). */
  env?: string;
  /** The command-line flag, for messages. */
  flag: string;
  description: string;
  kind: 'string' | 'path' | 'int' | 'boolean';
  /** What happens when it is set nowhere and has no default ("not set" otherwise). */
  whenUnset?: string;
}

export const SETTING_SPECS: Record<SettingKey, SettingSpec> = {
  baseUrl: {
    schema: z.string().min(1),
    env: 'MEMBERCTL_BASE_URL',
    flag: '--base-url',
    description: 'API base URL (member and push paths are relative to it)',
    kind: 'string',
  },
  tokenFile: {
    schema: z.string().min(1),
    flag: '--token-file',
    description: 'file holding the member token (JWT) on its first line',
    kind: 'path',
  },
  pushTokenFile: {
    schema: z.string().min(1),
    flag: '--token-file (subscribe)',
    description: 'file holding the push token on its first line',
    kind: 'path',
  },
  batchSize: {
    schema: positiveInt(100_000),
    env: 'MEMBERCTL_BATCH_SIZE',
    flag: '--batch-size',
    description: 'records per import request',
    kind: 'int',
  },
  maxBatchBytes: {
    schema: positiveInt(1024 ** 3),
    env: 'MEMBERCTL_MAX_BATCH_BYTES',
    flag: '--max-batch-bytes',
    description: 'JSON bytes per import request',
    kind: 'int',
  },
  concurrency: {
    schema: positiveInt(64),
    env: 'MEMBERCTL_CONCURRENCY',
    flag: '--concurrency',
    description: 'import requests in flight at once',
    kind: 'int',
    whenUnset: 'adapts to the server (up to --max-concurrency, 32)',
  },
  retries: {
    schema: z.number().int().min(0).max(100),
    env: 'MEMBERCTL_RETRIES',
    flag: '--retries',
    description: 'retries of a request after 429, 5xx, timeouts and connection errors',
    kind: 'int',
  },
  timeoutMs: {
    schema: positiveInt(3_600_000),
    env: 'MEMBERCTL_TIMEOUT',
    flag: '--timeout',
    description: 'milliseconds to wait for one response',
    kind: 'int',
  },
  maxRetryAfter: {
    schema: z
      .string()
      .refine((text) => parseDuration(text) !== undefined, {
        message: 'not a duration: write it like 90s, 5m, 2h, 1d or 1h30m (or whole seconds)',
      })
      .refine((text) => (parseDuration(text) ?? 0) <= MAX_RETRY_AFTER_LIMIT_MS, {
        message: 'at most 7d',
      }),
    env: 'MEMBERCTL_MAX_RETRY_AFTER',
    flag: '--max-retry-after',
    description: 'the longest Retry-After an import waits; a server asking for more stops the run (exit 4)',
    kind: 'string',
  },
  allowInsecureHttp: {
    schema: z.boolean(),
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
