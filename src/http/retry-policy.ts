/**
 * Retry policy as data (after undici's RetryHandler): which statuses and error codes are worth another attempt,
 * how many attempts, and how long to wait between them. Pure functions only: no timers, no I/O.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (attempts = retries + 1). */
  retries: number;
  /** Backoff before the first retry, doubled per retry up to maxDelayMs. */
  minDelayMs: number;
  maxDelayMs: number;
  /** Response statuses that are retried (the body of such a response is never trusted as a result). */
  statuses: number[];
  /** Error codes (node's and undici's) that are retried; timeouts have their own codes (UND_ERR_*_TIMEOUT). */
  errorCodes: string[];
  /**
   * The longest Retry-After honoured (--max-retry-after). A server that asks for more is not hammered earlier: the
   * request fails at once, with the wait in its cause, and the gate stays closed for that wait, so no other request
   * of this client goes out (the import then stops the run). Default 5 minutes.
   */
  maxRetryAfterMs?: number;
  /**
   * Retries for a request that could not connect (refused, unreachable, connect timeout) while this client has
   * never reached the server: a wrong port or a server that is down answers the same after 11 s of backoff as
   * after 1 s. Once any response came back, a refused connection is a restart and gets the full `retries`.
   */
  unreachedRetries?: number;
}

/** Connection failures worth another attempt. ENOTFOUND is left out on purpose: a wrong host name does not heal. */
export const RETRYABLE_ERROR_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];

/** The member import: an upsert, so repeating a POST is safe; 500 is retried too (the API documents it). */
export function memberRetryPolicy(retries = 5): RetryPolicy {
  return {
    retries,
    unreachedRetries: 2,
    minDelayMs: 500,
    maxDelayMs: 30_000,
    statuses: [429, 500, 502, 503, 504],
    errorCodes: [...RETRYABLE_ERROR_CODES],
  };
}

/** Push subscription: idempotent by installationId; a few quick retries, a 500 is reported rather than retried. */
export function pushRetryPolicy(retries = 3): RetryPolicy {
  return {
    retries,
    minDelayMs: 250,
    maxDelayMs: 5_000,
    statuses: [429, 502, 503, 504],
    errorCodes: [...RETRYABLE_ERROR_CODES],
  };
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Beyond this a wait is no longer a number worth carrying exactly (about 285,000 years). */
const LONGEST_RETRY_AFTER_MS = Number.MAX_SAFE_INTEGER;

/**
 * Retry-After as milliseconds from `now`: either delta-seconds ("120", "1.5" tolerated) or an HTTP date.
 * A date in the past means "now" (0). Garbage, negative or missing values give undefined (fall back to backoff:
 * a header that cannot be read says nothing, and the backoff is bounded). A huge number is kept as the long wait
 * it asks for (capped at MAX_SAFE_INTEGER ms, so 400 digits are not Infinity): it stops an import.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(LONGEST_RETRY_AFTER_MS, Math.round(Number(value) * 1000));
  // Only date-looking values: Date.parse accepts odd things like "1" or "-5" that are not HTTP dates.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Delay before retry number `attempt` (1 = first retry): capped exponential backoff with "equal jitter": half of
 * the step is fixed, half random. The fixed half keeps retries from bunching at zero; the random half spreads
 * many clients (and our own concurrent requests) that failed together.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // 2 ** 40 is already past any cap; clamping the exponent avoids Infinity for absurd attempt numbers.
  const step = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.min(exponent, 40));
  const half = step / 2;
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(half + r * half);
}

export function isRetryableStatus(status: number, policy: RetryPolicy): boolean {
  return policy.statuses.includes(status);
}
