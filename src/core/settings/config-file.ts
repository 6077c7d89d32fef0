/**
 * The config file: where it lives, its schema, and loading it with messages that name the file and the key.
 * It holds named profiles of settings; tokens themselves never live here, only paths to token files.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { CONFIG_ENV, SETTING_KEYS, type SettingKey } from './spec.js';
import { type ConfigLocation, tokenFilePath } from './location.js';
import { closest } from './suggest.js';
import {
  CURLY_QUOTES_HINT,
  notJsonText,
  parseJsonDocument,
  REPEATED_KEY_HINT,
  repeatedKeyText,
  repeatedKeys,
} from '../json-document.js';
import { SETTING_SCHEMAS } from './setting-schemas.js';

const profileShape = Object.fromEntries(SETTING_KEYS.map((key) => [key, SETTING_SCHEMAS[key].optional()])) as Record<
  SettingKey,
  z.ZodOptional<z.ZodType>
>;
export const profileSchema = z.strictObject({ description: z.string().optional(), ...profileShape });
export const configFileSchema = z.strictObject({
  $schema: z.string().optional(),
  defaultProfile: z.string().min(1).optional(),
  profiles: z.record(z.string().min(1), profileSchema).default({}),
});
export type ProfileConfig = Partial<Record<SettingKey, unknown>> & { description?: string };
export type ConfigFileData = { defaultProfile?: string; profiles: Record<string, ProfileConfig> };

export interface ConfigFile {
  path: string;
  data: ConfigFileData;
}

const configError = (path: string, message: string, hint?: string) =>
  new UsageError(`config file ${path}: ${message}`, { code: 'config', hint });

/** Loads and validates the file; undefined when it does not exist and nobody asked for it explicitly. */
export function loadConfigFile(location: ConfigLocation, home = homedir()): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(location.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !location.explicit) return undefined;
    throw configError(
      location.path,
      `cannot read it (${code ?? 'error'})`,
      `check ${CONFIG_ENV} or the file's permissions`,
    );
  }
  // read as written (json-document.ts): a BOM skipped, curly quotes named, a key given twice refused, not lost
  const document = parseJsonDocument(text);
  if (!document.ok) {
    const curly = document.problem.kind === 'curly-quotes';
    throw configError(
      location.path,
      notJsonText(document.problem),
      curly ? CURLY_QUOTES_HINT : 'the file must be one JSON object',
    );
  }
  const repeated = repeatedKeys(document);
  if (repeated.length > 0)
    throw configError(location.path, repeated.map(repeatedKeyText).join('; '), REPEATED_KEY_HINT);
  const parsed = configFileSchema.safeParse(document.json);
  if (!parsed.success) throw schemaError(location.path, parsed.error.issues);
  const data = parsed.data as ConfigFileData;
  if (data.defaultProfile !== undefined && !(data.defaultProfile in data.profiles)) {
    throw configError(
      location.path,
      `defaultProfile "${data.defaultProfile}" is not among the profiles`,
      knownProfilesHint(data),
    );
  }
  for (const profile of Object.values(data.profiles)) {
    for (const key of ['tokenFile', 'pushTokenFile'] as const) {
      const value = profile[key];
      if (typeof value === 'string') profile[key] = tokenFilePath(location.path, value, home);
    }
  }
  return { path: location.path, data };
}

export function knownProfilesHint(data: ConfigFileData | undefined): string {
  const names = Object.keys(data?.profiles ?? {});
  return names.length ? `known profiles: ${names.join(', ')}` : 'the config file defines no profiles';
}

const KNOWN_KEYS = {
  root: Object.keys(configFileSchema.shape),
  profile: Object.keys(profileSchema.shape),
};

function schemaError(path: string, issues: z.core.$ZodIssue[]): UsageError {
  const messages: string[] = [];
  let hint: string | undefined;
  for (const issue of issues) {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const known = at.length === 0 ? KNOWN_KEYS.root : KNOWN_KEYS.profile;
      for (const key of issue.keys) {
        const keyPath = [...at, key].join('.');
        if (/^(push)?token$/i.test(key)) {
          messages.push(`${keyPath}: tokens are never stored in the config file`);
          hint ??= `put the token in a file (chmod 600) and set "${key.toLowerCase() === 'pushtoken' ? 'pushTokenFile' : 'tokenFile'}": "/path/to/file"`;
          continue;
        }
        const suggestion = closest(key, known);
        messages.push(`${keyPath}: unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
        hint ??= `allowed keys here: ${known.join(', ')}`;
      }
    } else {
      messages.push(`${at.join('.') || '(top level)'}: ${issue.message}`);
    }
  }
  return configError(path, messages.join('; '), hint);
}
