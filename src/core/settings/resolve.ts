/**
 * Precedence, as one pure function: flag > environment > profile > default, remembering where each value came from
 * so `config show` can say it and a surprised user can find out why. No I/O here: easy to test exhaustively.
 */
import { UsageError } from '../../errors.js';
import type { ConfigFile } from './config-file.js';
import { knownProfilesHint } from './config-file.js';
import {
  PROFILE_ENV,
  SETTING_DEFAULTS,
  SETTING_KEYS,
  SETTING_SPECS,
  TOKEN_ENV,
  type SettingKey,
  type SettingValues,
} from './spec.js';
import { closest } from './suggest.js';
import { SETTING_SCHEMAS } from './setting-schemas.js';

export type Provenance =
  | { kind: 'flag'; flag: string }
  | { kind: 'env'; variable: string }
  | { kind: 'profile'; profile: string }
  | { kind: 'config'; file: string }
  | { kind: 'default' };

export interface Setting<T> {
  /** undefined with a `default` source means "not set". */
  value: T;
  source: Provenance;
}

/** Where a token will be read from. Never the token itself: resolution does not read secrets. */
export type TokenRef = { from: 'env'; variable: string } | { from: 'file'; path: string };
export type TokenArea = keyof typeof TOKEN_ENV;

export interface ResolvedSettings {
  configFile?: string;
  profile?: Setting<string>;
  values: { [K in SettingKey]: Setting<SettingValues[K] | undefined> };
  tokens: Record<TokenArea, Setting<TokenRef> | undefined>;
}

export interface SettingsInput {
  /** Only the values given on the command line (not commander defaults), keyed by setting. */
  flags?: Partial<SettingValues>;
  /** --profile NAME */
  profileFlag?: string;
  env: NodeJS.ProcessEnv;
  config?: ConfigFile;
  /** For messages when a profile is asked for but there is no file. */
  configPath?: string;
}

export function describeProvenance(source: Provenance): string {
  switch (source.kind) {
    case 'flag':
      return `flag ${source.flag}`;
    case 'env':
      return `env ${source.variable}`;
    case 'profile':
      return `profile ${source.profile}`;
    case 'config':
      return `defaultProfile in ${source.file}`;
    case 'default':
      return 'default';
  }
}

export function resolveSettings(input: SettingsInput): ResolvedSettings {
  const flags = input.flags ?? {};
  const profile = selectProfile(input);
  const profileValues = profile ? (input.config?.data.profiles[profile.value] ?? {}) : {};
  const values = {} as Record<SettingKey, Setting<unknown>>;
  for (const key of SETTING_KEYS) {
    values[key] = resolveOne(key, flags[key], input.env, profile?.value, profileValues[key]);
  }
  const fromFile = (key: 'tokenFile' | 'pushTokenFile', area: TokenArea): Setting<TokenRef> | undefined => {
    const file = values[key] as Setting<string | undefined>;
    if (file.source.kind === 'flag') return { value: { from: 'file', path: file.value! }, source: file.source };
    const variable = TOKEN_ENV[area];
    if (input.env[variable]?.trim()) return { value: { from: 'env', variable }, source: { kind: 'env', variable } };
    if (file.value !== undefined) return { value: { from: 'file', path: file.value }, source: file.source };
    return undefined;
  };
  return {
    configFile: input.config?.path,
    profile,
    values: values as ResolvedSettings['values'],
    tokens: { member: fromFile('tokenFile', 'member'), push: fromFile('pushTokenFile', 'push') },
  };
}

/** The plain values, for code that does not care where they came from. */
export function settingValues(settings: ResolvedSettings): SettingValues {
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, settings.values[key].value])) as unknown as SettingValues;
}

function selectProfile(input: SettingsInput): Setting<string> | undefined {
  let chosen: Setting<string> | undefined;
  if (input.profileFlag) chosen = { value: input.profileFlag, source: { kind: 'flag', flag: '--profile' } };
  else if (input.env[PROFILE_ENV])
    chosen = { value: input.env[PROFILE_ENV]!, source: { kind: 'env', variable: PROFILE_ENV } };
  else if (input.config?.data.defaultProfile) {
    return { value: input.config.data.defaultProfile, source: { kind: 'config', file: input.config.path } };
  }
  if (!chosen) return undefined;
  const profiles = input.config?.data.profiles ?? {};
  if (!(chosen.value in profiles)) {
    const where = input.config
      ? `in ${input.config.path}`
      : `(no config file at ${input.configPath ?? 'the default path'})`;
    const suggestion = closest(chosen.value, Object.keys(profiles));
    throw new UsageError(
      `unknown profile "${chosen.value}" (from ${describeProvenance(chosen.source)}) ${where}${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
      {
        code: 'unknown-profile',
        hint: input.config
          ? knownProfilesHint(input.config.data)
          : 'create the config file: see memberctl config --help',
      },
    );
  }
  return chosen;
}

function resolveOne(
  key: SettingKey,
  flag: unknown,
  env: NodeJS.ProcessEnv,
  profile: string | undefined,
  fromProfile: unknown,
): Setting<unknown> {
  const spec = SETTING_SPECS[key];
  if (flag !== undefined) {
    const value = typeof flag === 'string' ? fromText(key, flag.trim(), spec.flag) : flag;
    return { value: checked(key, value, spec.flag), source: { kind: 'flag', flag: spec.flag } };
  }
  const text = spec.env ? env[spec.env] : undefined;
  if (spec.env && text !== undefined && text.trim() !== '') {
    return {
      value: checked(key, fromText(key, text.trim(), spec.env), spec.env),
      source: { kind: 'env', variable: spec.env },
    };
  }
  // Profile values were validated with the same schema when the file was loaded.
  if (fromProfile !== undefined && profile !== undefined)
    return { value: fromProfile, source: { kind: 'profile', profile } };
  return { value: (SETTING_DEFAULTS as Partial<Record<SettingKey, unknown>>)[key], source: { kind: 'default' } };
}

function fromText(key: SettingKey, text: string, variable: string): unknown {
  const kind = SETTING_SPECS[key].kind;
  if (kind === 'int') {
    if (!/^\d+$/.test(text))
      throw new UsageError(`${variable} "${text}" is not a whole number`, {
        code: 'bad-setting',
        hint: rangeHint(key, variable),
      });
    return Number(text);
  }
  return text;
}

/** A whole-number setting's bounds, read from its schema (zod keeps them): what to say instead of zod's words. */
function bounds(key: SettingKey): { min: number; max: number } | undefined {
  const schema = SETTING_SCHEMAS[key] as unknown as { minValue?: number | null; maxValue?: number | null };
  return typeof schema.minValue === 'number' && typeof schema.maxValue === 'number'
    ? { min: schema.minValue, max: schema.maxValue }
    : undefined;
}

/** "--concurrency takes a whole number from 1 to 64 (e.g. --concurrency 8)", the example the default when there is one. */
function rangeHint(key: SettingKey, origin: string): string | undefined {
  const range = bounds(key);
  if (!range) return undefined;
  const fallback = (SETTING_DEFAULTS as Partial<Record<SettingKey, unknown>>)[key];
  const example = typeof fallback === 'number' ? fallback : Math.min(Math.max(8, range.min), range.max);
  const given = origin.startsWith('-') ? `${origin} ${example}` : `${origin}=${example}`;
  const unit = SETTING_SPECS[key].unit;
  return `${origin} takes a whole number${unit ? ` of ${unit}` : ''} from ${range.min.toLocaleString('en-US')} to ${range.max.toLocaleString('en-US')} (e.g. ${given})`;
}

function checked(key: SettingKey, value: unknown, origin: string): unknown {
  const result = SETTING_SCHEMAS[key].safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const range = bounds(key);
  // zod's own words ("Too small: expected number to be >=1") are for programmers; the bounds say it to a user
  const outOfRange = range && (issue?.code === 'too_small' || issue?.code === 'too_big');
  const what = outOfRange ? `out of range` : (issue?.message ?? 'invalid value');
  throw new UsageError(`${origin} ${JSON.stringify(value)}: ${what}`, {
    code: 'bad-setting',
    ...(outOfRange ? { hint: rangeHint(key, origin) } : {}),
  });
}
