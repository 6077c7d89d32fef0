/**
 * What `subscribe` checks before anything is sent: the platform in the API's spelling (typed any way a human
 * would), the shared schema's bounds, and light heuristics about the device token. Token oddities are warnings,
 * never errors: the push hub is the judge of its own tokens. Copy-paste debris around a token (spaces, angle
 * brackets, quotes) is the exception: an APNs token is hex, and only the old iOS description format
 * (`<a1b2c3d4 e5f6…>`) puts brackets and spaces into it, so that one is cleaned and said so; on any other platform
 * the debris is refused with the cleaned value as the hint (--clean-token sends it cleaned).
 */
import { subscriptionRequestSchema, type Platform, type SubscriptionRequest } from '../../schemas/index.js';
import { normalizePlatform, suggestPlatform, type PlatformSuggestion } from './platforms.js';

export interface SubscriptionDraft {
  customerId?: string;
  tokenHandle?: string;
  platform?: string;
  installationId?: string;
}

export interface PreparedSubscription {
  customerId: string;
  request: SubscriptionRequest;
  warnings: string[];
  /** When the token was cleaned (--clean-token, or an APNs token in the old description format): what was typed. */
  cleanedFrom?: string;
}

/** The draft's fields in prompt order, with their flags (customer id is the positional argument). */
export const DRAFT_FIELDS = [
  { key: 'customerId', flag: 'CUSTOMER_ID', label: 'customer id' },
  { key: 'tokenHandle', flag: '--token-handle', label: 'device token (token handle)' },
  { key: 'platform', flag: '--platform', label: 'platform' },
  { key: 'installationId', flag: '--installation-id', label: 'installation id' },
] as const satisfies readonly { key: keyof SubscriptionDraft; flag: string; label: string }[];

export function missingFields(draft: SubscriptionDraft): (keyof SubscriptionDraft)[] {
  return DRAFT_FIELDS.filter((field) => draft[field.key] === undefined).map((field) => field.key);
}

/** What --clean-token sends: no whitespace, no angle brackets, no quotes around it (all are copy-paste debris). */
export function cleanToken(token: string): string {
  return token.replace(/[\s<>]+/g, '').replace(/^["']+|["']+$/g, '');
}

const HEX = /^[0-9a-f]+$/i;

/**
 * Hex digits an APNs token can have once cleaned: Apple issues 32-byte tokens (64 digits) and documents them as
 * variable length, up to the 100 bytes its binary interface allowed. Fewer or an odd count is part of a token.
 */
export const APNS_HEX_DIGITS = { min: 64, max: 200 } as const;

/** What iOS 13 and later print for `"\(deviceToken)"`: the length and the first and last bytes, not the token. */
const DATA_DESCRIPTION = /^\{\s*length\s*=\s*\d+\s*,\s*bytes\s*=\s*0x[0-9a-f]*\s*(\.\.\.|…)\s*[0-9a-f]*\s*\}$/i;

export function isTruncatedDescription(token: string): boolean {
  return DATA_DESCRIPTION.test(token.trim());
}

function implausibleApnsLength(hex: string): boolean {
  return hex.length % 2 !== 0 || hex.length < APNS_HEX_DIGITS.min || hex.length > APNS_HEX_DIGITS.max;
}

/** An opening < without a closing > (or the reverse) in what was typed: the paste may have stopped short. */
export function unbalancedBrackets(typed: string): boolean {
  return (typed.match(/</g)?.length ?? 0) !== (typed.match(/>/g)?.length ?? 0);
}

/** An APNs token with debris around it is cleaned without --clean-token: hex with brackets and spaces is unambiguous. */
function cleanedAsApns(platform: Platform | undefined, token: string): boolean {
  const cleaned = cleanToken(token);
  return platform === 'Apns' && cleaned !== token && cleaned.length > 0 && HEX.test(cleaned);
}
/** FCM registration tokens: "<instance id>:APA91b..." in URL-safe base64 characters, usually ~150+ long. */
const FCM_SHAPE = /^[\w-]+:[\w-]+$/;

/** Light heuristics: each warning says what looks odd and why it may matter; none stops the request. */
export function tokenWarnings(platform: Platform, token: string): string[] {
  const warnings: string[] = [];
  const cleaned = cleanToken(token);
  const looksFcm = FCM_SHAPE.test(cleaned) && cleaned.includes(':APA91');
  if (platform === 'Apns') {
    if (looksFcm)
      warnings.push('the device token looks like an FCM token (…:APA91…), not an APNs one: is the platform FcmV1?');
    else if (!HEX.test(cleaned))
      warnings.push('APNs device tokens are hexadecimal (0-9, a-f); this one has other characters');
    else if (cleaned.length < 32 || cleaned.length % 2 !== 0)
      warnings.push(
        `an APNs device token of ${cleaned.length} hex digits is unusual (they are whole bytes, typically 64 digits or more)`,
      );
  } else if (platform === 'Fcm' || platform === 'FcmV1') {
    if (HEX.test(cleaned) && cleaned.length >= 32)
      warnings.push('the device token is plain hex, like an APNs token: is the platform Apns?');
    else if (!FCM_SHAPE.test(cleaned))
      warnings.push(
        'FCM registration tokens usually look like "<id>:APA91b…" (letters, digits, - and _ around one colon); this one does not',
      );
    else if (cleaned.length < 100)
      warnings.push(
        `an FCM registration token of ${cleaned.length} characters is unusually short (they are typically 150 or more)`,
      );
  } else if (platform === 'Hms') {
    if (looksFcm) warnings.push('the device token looks like an FCM token (…:APA91…): is the platform FcmV1?');
    else if (HEX.test(cleaned) && cleaned.length === 64)
      warnings.push('the device token looks like an APNs token (64 hex digits): is the platform Apns?');
  }
  return warnings;
}

/** The API's bounds on the two free-text fields (the shared schema enforces the same). */
export const FIELD_LIMITS = { tokenHandle: 255, installationId: 50 } as const;

/** What is wrong with one value, as data: the command line says it in words that fit where the value came from. */
export type SubscriptionProblem =
  | { field: keyof SubscriptionDraft; kind: 'missing' }
  | { field: 'customerId'; kind: 'empty' }
  /** Only dots or whitespace: `..` in the URL path (even as %2E%2E) is a dot segment to servers that decode it. */
  | { field: 'customerId'; kind: 'dot-segment'; value: string }
  /**
   * Spaces around an id (a paste): sent as written they are part of the id, trimmed they would be a guess. For the
   * installation id, which the API keys the device by, " inst-1" would be a second device beside "inst-1".
   */
  | { field: 'customerId' | 'installationId'; kind: 'surrounding-space'; value: string; trimmed: string }
  | { field: 'tokenHandle' | 'installationId'; kind: 'empty' | 'too-long'; length: number; limit: number }
  | { field: 'platform'; kind: 'unknown'; value: string; suggestion?: PlatformSuggestion }
  /** Spaces, angle brackets or quotes around or in a token memberctl does not clean by itself: `cleaned` is the hint. */
  | { field: 'tokenHandle'; kind: 'pasted-debris'; platform: Platform; cleaned: string }
  /** iOS 13+'s description of the token's Data, `{length=32,bytes=0xa1b2…c5d6}`: its middle is cut out. */
  | { field: 'tokenHandle'; kind: 'truncated-description' }
  /** Hex left after cleaning an APNs token that no APNs token has (odd, or outside APNS_HEX_DIGITS): a partial paste. */
  | { field: 'tokenHandle'; kind: 'implausible-apns-length'; hexDigits: number };

export type CheckedSubscription =
  | ({ kind: 'ready' } & PreparedSubscription)
  | { kind: 'invalid'; problems: SubscriptionProblem[] };

/** One free-text field against the API's bounds, or undefined when it is fine. */
export function fieldProblem(field: 'tokenHandle' | 'installationId', value: string): SubscriptionProblem | undefined {
  if (subscriptionRequestSchema.shape[field].safeParse(value).success) return undefined;
  return { field, kind: value.length === 0 ? 'empty' : 'too-long', length: value.length, limit: FIELD_LIMITS[field] };
}

/** A customer id goes into the URL path: one that would move the path, or carries a paste's spaces, is refused. */
export function customerIdProblems(value: string): SubscriptionProblem[] {
  if (value.length === 0) return [{ field: 'customerId', kind: 'empty' }];
  if (/^[.\s]+$/.test(value)) return [{ field: 'customerId', kind: 'dot-segment', value }];
  if (value.trim() !== value) return [{ field: 'customerId', kind: 'surrounding-space', value, trimmed: value.trim() }];
  return [];
}

/** The platform as the API spells it, or why not (with the nearest platform when the value is a near miss). */
export function platformProblem(value: string): SubscriptionProblem | undefined {
  if (normalizePlatform(value)) return undefined;
  const suggestion = suggestPlatform(value);
  return { field: 'platform', kind: 'unknown', value, ...(suggestion ? { suggestion } : {}) };
}

/** What is wrong with the values a draft has (absent ones are 'missing'), in field order; empty when none. */
export function draftProblems(draft: SubscriptionDraft, options: { cleanToken?: boolean } = {}): SubscriptionProblem[] {
  const platform = draft.platform === undefined ? undefined : normalizePlatform(draft.platform);
  return DRAFT_FIELDS.flatMap(({ key }): SubscriptionProblem[] => {
    const value = draft[key];
    if (value === undefined) return [{ field: key, kind: 'missing' }];
    if (key === 'customerId') return customerIdProblems(value);
    if (key === 'platform') {
      const problem = platformProblem(value);
      return problem ? [problem] : [];
    }
    if (key === 'tokenHandle' && isTruncatedDescription(value)) return [{ field: key, kind: 'truncated-description' }];
    const sent = key === 'tokenHandle' ? tokenToSend(platform, value, options) : value;
    const problem = fieldProblem(key, sent);
    if (problem) return [problem];
    if (key === 'installationId' && value.trim() !== value)
      return [{ field: key, kind: 'surrounding-space', value, trimmed: value.trim() }];
    // a cleaned APNs token was reshaped by memberctl: it must at least have a real token's length
    if (key === 'tokenHandle' && platform === 'Apns' && sent !== value && HEX.test(sent) && implausibleApnsLength(sent))
      return [{ field: key, kind: 'implausible-apns-length', hexDigits: sent.length }];
    // debris is judged once the platform is known (a question may still ask for it)
    if (key === 'tokenHandle' && platform && sent !== cleanToken(sent))
      return [{ field: key, kind: 'pasted-debris', platform, cleaned: cleanToken(sent) }];
    return [];
  });
}

/** The token as it will be sent: cleaned with --clean-token, or when it is an APNs token in the old description format. */
function tokenToSend(platform: Platform | undefined, typed: string, options: { cleanToken?: boolean }): string {
  return options.cleanToken || cleanedAsApns(platform, typed) ? cleanToken(typed) : typed;
}

/**
 * Checks a draft with the shared schema and normalizes it. Every problem is returned at once (nothing is sent),
 * so a script author fixes them in one go.
 */
export function checkSubscription(
  draft: SubscriptionDraft,
  options: { cleanToken?: boolean } = {},
): CheckedSubscription {
  const problems = draftProblems(draft, options);
  const platform = normalizePlatform(draft.platform ?? '');
  if (problems.length > 0 || !platform) return { kind: 'invalid', problems };
  const customerId = draft.customerId!;
  const typedToken = draft.tokenHandle!;
  const tokenHandle = tokenToSend(platform, typedToken, options);
  const warnings: string[] = [];
  if (platform === 'Fcm')
    warnings.push(
      'platform Fcm (legacy Android) is deprecated in favour of FcmV1; use --platform FcmV1 for current Android apps',
    );
  warnings.push(...tokenWarnings(platform, tokenHandle));
  if (tokenHandle !== typedToken && unbalancedBrackets(typedToken))
    warnings.push(
      'the pasted token has an angle bracket without its partner (< … >): check that the whole token was copied',
    );
  // The shared schema has the last word: whatever passes here is exactly what the API accepts.
  const request = subscriptionRequestSchema.parse({ tokenHandle, platform, installationId: draft.installationId });
  return {
    kind: 'ready',
    customerId,
    request,
    warnings,
    ...(tokenHandle !== typedToken ? { cleanedFrom: typedToken } : {}),
  };
}
