/** Each setting's schema, shared by the config file and by values given as text (env); spec.ts describes them. */
import { z } from 'zod';
import { parseDuration } from '../../duration.js';
import { MAX_RETRY_AFTER_LIMIT_MS, type SettingKey } from './spec.js';

const positiveInt = (max: number) => z.number().int().min(1).max(max);

export const SETTING_SCHEMAS: Record<SettingKey, z.ZodType> = {
  baseUrl: z.string().min(1),
  tokenFile: z.string().min(1),
  pushTokenFile: z.string().min(1),
  batchSize: positiveInt(100_000),
  maxBatchBytes: positiveInt(1024 ** 3),
  concurrency: positiveInt(64),
  retries: z.number().int().min(0).max(100),
  timeoutMs: positiveInt(3_600_000),
  maxRetryAfter: z
    .string()
    .refine((text) => parseDuration(text) !== undefined, {
      message: 'not a duration: write it like 90s, 5m, 2h, 1d or 1h30m (or whole seconds)',
    })
    .refine((text) => (parseDuration(text) ?? 0) <= MAX_RETRY_AFTER_LIMIT_MS, {
      message: 'at most 7d',
    }),
  allowInsecureHttp: z.boolean(),
};
