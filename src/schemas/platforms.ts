/** The push platforms, without their schema: help texts name them without loading zod (push.ts holds the schema). */

/** The API's spelling of each platform, with what it means for humans. */
export const PLATFORMS = {
  Apns: 'iOS',
  Fcm: 'Android (deprecated)',
  FcmV1: 'Android (new)',
  Hms: 'Huawei',
} as const;
export type Platform = keyof typeof PLATFORMS;
export const PLATFORM_NAMES = Object.keys(PLATFORMS) as Platform[];
