/**
 * `subscribe`'s input problems in words: each names its field the way the user gave it (a flag, a prompt, a key
 * of the --from blob), its limit and the value's length; the hint speaks only of the fields that are wrong.
 * Values are never echoed except a platform (short, and what was typed is the clue to the fix) and a pasted
 * token's cleaned form (the fix itself; a device token is an address, not a secret).
 */
import {
  APNS_HEX_DIGITS,
  DRAFT_FIELDS,
  FIELD_LIMITS,
  type SubscriptionDraft,
  type SubscriptionProblem,
} from '../../core/subscribe/index.js';
import type { PlatformSuggestion } from '../../core/subscribe/platforms.js';
import { platformList } from './subscribe-words.js';
import { UsageError } from '../../errors.js';

/** Where a value came from: a flag or argument (the default), a prompt answer, or a key of the --from blob. */
export type ValueSource = 'flag' | 'prompt' | { blobKey: string };
export type ValueSources = Partial<Record<keyof SubscriptionDraft, ValueSource>>;

const fieldOf = (key: keyof SubscriptionDraft) => DRAFT_FIELDS.find((field) => field.key === key)!;

/** "--installation-id", "installation id", or 'installation id ("installation_id" in the --from blob)'. */
export function fieldName(key: keyof SubscriptionDraft, source: ValueSource = 'flag'): string {
  const field = fieldOf(key);
  if (source === 'flag') return field.flag;
  if (source === 'prompt') return field.label.replace(/ \(.*\)$/, '');
  return `${field.label.replace(/ \(.*\)$/, '')} (${JSON.stringify(source.blobKey)} in the --from blob)`;
}

/** Every platform with the everyday words that mean it, current ones first; Fcm is legacy and has no alias. */
export function suggestionText(suggestion: PlatformSuggestion): string {
  return suggestion.alias ? `${suggestion.platform} (${suggestion.alias})` : suggestion.platform;
}

/** A value shown back to the user: quoted with JSON's escapes (no control characters reach the terminal), cut short. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** One problem in one clause, without the "nothing sent" that the whole message says once. */
export function problemText(problem: SubscriptionProblem, source?: ValueSource): string {
  const name = fieldName(problem.field, source);
  switch (problem.kind) {
    case 'missing':
      return `${name} is missing`;
    case 'empty':
      return problem.field === 'customerId'
        ? `${name} is empty`
        : `${name} is empty (the API needs 1 to ${FIELD_LIMITS[problem.field]} characters)`;
    case 'too-long':
      return `${name} is ${problem.length} characters long; the API allows 1 to ${problem.limit}`;
    case 'pasted-debris':
      return `${name} holds spaces, angle brackets or quotes (as pasted from a log); a ${problem.platform} token is not cleaned by guesswork`;
    case 'dot-segment':
      return `${name} ${shown(problem.value)} is only dots or spaces: in the URL path a server may read it as . or .. and reach another resource`;
    case 'surrounding-space':
      return `${name} ${shown(problem.value)} has spaces around it, which would be sent as part of the id`;
    case 'truncated-description':
      return `${name} is the shortened description iOS 13 and later print for the token ({length=32,bytes=0x…}): its middle is cut out, so it is not the token`;
    case 'implausible-apns-length':
      return `${name} cleaned of brackets and spaces has ${problem.hexDigits} hex digits; an APNs token has an even count from ${APNS_HEX_DIGITS.min} to ${APNS_HEX_DIGITS.max} (Apple issues 64), so part of it is missing`;
    case 'unknown': {
      if (problem.value.trim() === '') return `${name} is empty`;
      const base = `${name} ${shown(problem.value)} is not a platform`;
      return problem.suggestion ? `${base}; did you mean ${suggestionText(problem.suggestion)}?` : base;
    }
  }
}

const FIELD_HINTS: Record<keyof SubscriptionDraft, (problem: SubscriptionProblem) => string> = {
  customerId: (problem) =>
    problem.kind === 'surrounding-space'
      ? `without them the id is ${shown(problem.trimmed)}: pass that`
      : 'the customer id is the first argument: memberctl subscribe CUSTOMER_ID …',
  tokenHandle: (problem) =>
    problem.kind === 'pasted-debris'
      ? `without them the token is ${problem.cleaned}: pass that, or add --clean-token to send it cleaned`
      : problem.kind === 'truncated-description'
        ? 'log the full token as hex in the app: deviceToken.map { String(format: "%02x", $0) }.joined() (Swift), then pass that'
        : problem.kind === 'implausible-apns-length'
          ? 'copy the whole token from the log (all of it between < and >), or log it as hex in the app: deviceToken.map { String(format: "%02x", $0) }.joined()'
          : problem.kind === 'too-long'
            ? 'a device token is at most 255 characters (APNs: 64 or more hex digits; FCM: ~150 characters): check that only the token was copied'
            : "the device token is in the app's debug log or support screen",
  platform: () => `platforms: ${platformList()}`,
  installationId: (problem) =>
    problem.kind === 'surrounding-space'
      ? `without them the id is ${shown(problem.trimmed)}: pass that`
      : "the installation id is the app installation's own id (at most 50 characters), not the device token: check that only the id was copied",
};

/** The hint for these problems only: a wrong installation id says nothing about platforms. */
export function problemsHint(problems: readonly SubscriptionProblem[]): string {
  const seen = new Set<string>();
  for (const problem of problems) seen.add(FIELD_HINTS[problem.field](problem));
  return [...seen].join('; ');
}

/** The exit-2 error for a draft that failed its checks; --json gets the problems as data. */
export function invalidSubscriptionError(
  problems: readonly SubscriptionProblem[],
  sources: ValueSources = {},
): UsageError {
  const texts = problems.map((problem) => problemText(problem, sources[problem.field]));
  return new UsageError(`invalid subscription, nothing sent: ${texts.join('; ')}`, {
    code: 'invalid-subscription',
    hint: problemsHint(problems),
    details: { problems },
  });
}

export function missingError(missing: readonly (keyof SubscriptionDraft)[], why = 'no terminal to ask on'): UsageError {
  const names = DRAFT_FIELDS.filter((field) => missing.includes(field.key)).map((field) => field.flag);
  return new UsageError(`missing ${names.join(', ')} (${why}; nothing sent)`, {
    code: 'missing-values',
    hint: 'memberctl subscribe CUSTOMER_ID --token-handle TOKEN --platform Apns|FcmV1|Hms|Fcm --installation-id ID',
    details: { missing: names },
  });
}
