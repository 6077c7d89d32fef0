/**
 * The push platforms as people type them: the API's names in any case (`fcm-v1`, `FCM_V1`), the everyday words
 * support staff and app logs use (`ios`, `android`, `huawei`, …), and a "did you mean" for near misses.
 */
import levenshtein from 'damerau-levenshtein';
import { PLATFORM_NAMES, type Platform } from '../../schemas/platforms.js';

/**
 * Everyday words for the platforms, as apps print them in an `os` or `platform` field. `Fcm` (legacy Android,
 * deprecated) is never chosen by an alias: `android` means the current FcmV1.
 */
const PLATFORM_ALIASES: Readonly<Record<string, Platform>> = {
  ios: 'Apns',
  ipados: 'Apns',
  iphone: 'Apns',
  ipad: 'Apns',
  apple: 'Apns',
  android: 'FcmV1',
  firebase: 'FcmV1',
  huawei: 'Hms',
  harmonyos: 'Hms',
};

/** How a platform is compared: case, spaces, `-`, `_` and `.` do not matter. */
const squash = (input: string) =>
  input
    .trim()
    .toLowerCase()
    .replace(/[\s_.-]+/g, '');

export function normalizePlatform(input: string): Platform | undefined {
  const key = squash(input);
  return PLATFORM_NAMES.find((name) => name.toLowerCase() === key) ?? PLATFORM_ALIASES[key];
}

/** The aliases of one platform, in the table's order. */
export function aliasesOf(platform: Platform): string[] {
  return Object.entries(PLATFORM_ALIASES).flatMap(([alias, target]) => (target === platform ? [alias] : []));
}

/** A near miss's likely meaning; `alias` is the everyday word it was close to, when it was one. */
export interface PlatformSuggestion {
  platform: Platform;
  alias?: string;
}

/**
 * The platform a mistyped value most likely meant: one edit away (a swap of two neighbours counts as one, so
 * `iso` → ios) for short words, two for longer ones, or the start of a word (`andr` → android). Nothing when
 * two platforms are equally close: a wrong guess would send the support desk the wrong way.
 */
export function suggestPlatform(input: string): PlatformSuggestion | undefined {
  const typed = squash(input);
  if (typed.length < 2) return undefined;
  const words: [string, PlatformSuggestion][] = [
    ...PLATFORM_NAMES.map((name): [string, PlatformSuggestion] => [name.toLowerCase(), { platform: name }]),
    ...Object.entries(PLATFORM_ALIASES).map(([alias, platform]): [string, PlatformSuggestion] => [
      alias,
      { platform, alias },
    ]),
  ];
  const limit = typed.length <= 4 ? 1 : 2;
  const scored = words
    .map(([word, suggestion]) => ({
      suggestion,
      steps: typed.length >= 3 && word.startsWith(typed) ? 1 : levenshtein(typed, word).steps,
    }))
    .filter(({ steps }) => steps <= limit);
  const best = Math.min(...scored.map(({ steps }) => steps));
  const nearest = scored.filter(({ steps }) => steps === best);
  const platforms = new Set(nearest.map(({ suggestion }) => suggestion.platform));
  return platforms.size === 1 ? nearest[0]!.suggestion : undefined;
}
