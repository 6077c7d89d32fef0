/**
 * What `subscribe` checks before anything is sent: the platform in the API's spelling (typed any way a human
 * would), the shared schema's bounds, and light heuristics about the device token. Token oddities are warnings,
 * never errors: the push hub is the judge of its own tokens.
 */
import { PLATFORMS, PLATFORM_NAMES, subscriptionRequestSchema, type Platform, type SubscriptionRequest } from '../schemas/index.js';
import { UsageError } from '../errors.js';

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
  /** When --clean-token changed the token: what was typed was not what is sent. */
  cleanedFrom?: string;
}

/** The draft's fields in prompt order, with their flags (customer id is the positional argument). */
export const DRAFT_FIELDS = [
  { key: 'customerId', flag: 'CUSTOMER_ID', label: 'customer id' },
  { key: 'tokenHandle', flag: '--token-handle', label: 'device token (token handle)' },
  { key: 'platform', flag: '--platform', label: 'platform' },
  { key: 'installationId', flag: '--installation-id', label: 'installation id' },
] as const satisfies readonly { key: keyof SubscriptionDraft; flag: string; label: string }[];

/** Other names people use for the platforms; the API's own names work in any case and with - or _. */
const ALIASES: Record<string, Platform> = { ios: 'Apns', apple: 'Apns', android: 'FcmV1', huawei: 'Hms' };

export function normalizePlatform(input: string): Platform | undefined {
  const key = input.trim().toLowerCase().replace(/[\s_.-]+/g, '');
  return PLATFORM_NAMES.find((name) => name.toLowerCase() === key) ?? ALIASES[key];
}

export function describePlatforms(): string {
  return PLATFORM_NAMES.map((name) => `${name} (${PLATFORMS[name]})`).join(', ');
}

export function missingFields(draft: SubscriptionDraft): (keyof SubscriptionDraft)[] {
  return DRAFT_FIELDS.filter((field) => draft[field.key] === undefined).map((field) => field.key);
}

/** What --clean-token sends: no whitespace, no angle brackets, no quotes around it (all are copy-paste debris). */
export function cleanToken(token: string): string {
  return token.replace(/[\s<>]+/g, '').replace(/^["']+|["']+$/g, '');
}

const HEX = /^[0-9a-f]+$/i;
/** FCM registration tokens: "<instance id>:APA91b..." in URL-safe base64 characters, usually ~150+ long. */
const FCM_SHAPE = /^[\w-]+:[\w-]+$/;

/** Light heuristics: each warning says what looks odd and why it may matter; none stops the request. */
export function tokenWarnings(platform: Platform, token: string): string[] {
  const warnings: string[] = [];
  const cleaned = cleanToken(token);
  if (cleaned !== token && cleaned.length > 0) {
    warnings.push(`the device token holds spaces, angle brackets or quotes (as pasted from a log); it is sent as typed. With --clean-token memberctl would send: ${cleaned}`);
  }
  const looksFcm = FCM_SHAPE.test(cleaned) && cleaned.includes(':APA91');
  if (platform === 'Apns') {
    if (looksFcm) warnings.push('the device token looks like an FCM token (…:APA91…), not an APNs one: is the platform FcmV1?');
    else if (!HEX.test(cleaned)) warnings.push('APNs device tokens are hexadecimal (0-9, a-f); this one has other characters');
    else if (cleaned.length < 32 || cleaned.length % 2 !== 0) warnings.push(`an APNs device token of ${cleaned.length} hex digits is unusual (they are whole bytes, typically 64 digits or more)`);
  } else if (platform === 'Fcm' || platform === 'FcmV1') {
    if (HEX.test(cleaned) && cleaned.length >= 32) warnings.push('the device token is plain hex, like an APNs token: is the platform Apns?');
    else if (!FCM_SHAPE.test(cleaned)) warnings.push('FCM registration tokens usually look like "<id>:APA91b…" (letters, digits, - and _ around one colon); this one does not');
    else if (cleaned.length < 100) warnings.push(`an FCM registration token of ${cleaned.length} characters is unusually short (they are typically 150 or more)`);
  } else if (platform === 'Hms') {
    if (looksFcm) warnings.push('the device token looks like an FCM token (…:APA91…): is the platform FcmV1?');
    else if (HEX.test(cleaned) && cleaned.length === 64) warnings.push('the device token looks like an APNs token (64 hex digits): is the platform Apns?');
  }
  return warnings;
}

/** One field's problem in the words of the API's bounds, or undefined when it is fine. */
export function fieldProblem(key: 'tokenHandle' | 'installationId', value: string): string | undefined {
  const result = subscriptionRequestSchema.shape[key].safeParse(value);
  if (result.success) return undefined;
  const bound = key === 'tokenHandle' ? 255 : 50;
  const flag = key === 'tokenHandle' ? '--token-handle' : '--installation-id';
  return value.length === 0 ? `${flag} is empty (the API needs 1 to ${bound} characters)` : `${flag} is ${value.length} characters long; the API allows 1 to ${bound}`;
}

/**
 * Checks a complete draft with the shared schema and normalizes it. Throws a UsageError (exit 2, nothing sent)
 * that names every problem at once, so a script author fixes them in one go.
 */
export function prepareSubscription(draft: SubscriptionDraft, options: { cleanToken?: boolean } = {}): PreparedSubscription {
  const missing = missingFields(draft);
  if (missing.length > 0) throw missingError(missing);
  const problems: string[] = [];
  const warnings: string[] = [];
  const customerId = draft.customerId!;
  if (customerId.length === 0) problems.push('CUSTOMER_ID is empty');
  const platform = normalizePlatform(draft.platform!);
  if (!platform) problems.push(`--platform "${draft.platform}" is not a platform; use one of ${describePlatforms()}`);
  if (platform === 'Fcm') warnings.push('platform Fcm (legacy Android) is deprecated in favour of FcmV1; use --platform FcmV1 for current Android apps');
  const typedToken = draft.tokenHandle!;
  const tokenHandle = options.cleanToken ? cleanToken(typedToken) : typedToken;
  for (const [key, value] of [['tokenHandle', tokenHandle], ['installationId', draft.installationId!]] as const) {
    const problem = fieldProblem(key, value);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) {
    throw new UsageError(`invalid subscription, nothing sent: ${problems.join('; ')}`, {
      code: 'invalid-subscription',
      hint: `platforms: ${describePlatforms()}`,
      details: { problems },
    });
  }
  if (platform && !options.cleanToken) warnings.push(...tokenWarnings(platform, tokenHandle));
  else if (platform) warnings.push(...tokenWarnings(platform, tokenHandle).filter((w) => !w.includes('--clean-token')));
  // The shared schema has the last word: whatever passes here is exactly what the API accepts.
  const request = subscriptionRequestSchema.parse({ tokenHandle, platform, installationId: draft.installationId });
  return { customerId, request, warnings, ...(tokenHandle !== typedToken ? { cleanedFrom: typedToken } : {}) };
}

export function missingError(missing: (keyof SubscriptionDraft)[], why = 'no terminal to ask on'): UsageError {
  const names = DRAFT_FIELDS.filter((field) => missing.includes(field.key)).map((field) => field.flag);
  return new UsageError(`missing ${names.join(', ')} (${why}; nothing sent)`, {
    code: 'missing-values',
    hint: 'memberctl subscribe CUSTOMER_ID --token-handle TOKEN --platform Apns|FcmV1|Hms|Fcm --installation-id ID',
    details: { missing: names },
  });
}
