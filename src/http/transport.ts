/**
 * The retry loop shared by both API clients: one keep-alive undici Pool per server, one pause gate, a per-attempt
 * timeout, retries by policy honouring Retry-After. It answers with the final response (read, capped, redacted)
 * or with why there is none; the clients map that to their own outcome types.
 */
import type { Dispatcher, Pool } from 'undici';
import { formatDuration, formatWait } from '../duration.js';
import { lazy } from '../lazy.js';
import { PauseGate } from './pause-gate.js';
import { readBodyCapped, headerValue, ERROR_BODY_KEEP_BYTES, type ReadBody } from './response-body.js';
import {
  backoffDelay,
  parseRetryAfter,
  isRetryableStatus,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type RetryPolicy,
} from './retry-policy.js';
import { anySignal, sleep } from './sleep.js';
import {
  describeErrorBody,
  describeNetworkError,
  networkCause,
  networkErrorReason,
  gaveUpText,
  isRetryableError,
  type FailureCause,
} from './failure.js';
import { defaultUserAgent } from './user-agent.js';
import { redactCutText, redactHeaders, redactor, type Redactor } from './redact.js';

/**
 * undici's Pool and its `request`, from their own modules rather than undici's index: the index loads all of undici
 * (fetch, WebSocket, EventSource, the caches, the mocks: ~430 of the 864 modules a CSV import loaded; at start
 * +4.8 MB of heap and +20 MB of RSS against +1.7 and +10 MB for these two), and
 * a run only needs these two (docs/performance.md, issue 28). The index is also what adds `request` to every
 * dispatcher's prototype, so it is called on the pool here. undici 7's package.json has no `exports`, so its files
 * may be required by path; a version that adds `exports` fails the import tests at once (module not found).
 */
const undiciPool = lazy<typeof Pool>('undici/lib/dispatcher/pool');
const undiciRequest =
  lazy<(this: Pool, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>>(
    'undici/lib/api/api-request',
  );
export interface RetryInfo {
  /** The retry about to be made (1 = first retry). */
  attempt: number;
  delayMs: number;
  /** "503", "429", "ECONNRESET", "timeout"... */
  reason: string;
}

export interface TransportOptions {
  baseUrl: URL;
  token: string;
  /** Sockets in the pool: the most requests in flight at once. */
  connections: number;
  /** Per attempt: waiting for response headers, then for each piece of the body and for the whole body. */
  timeoutMs: number;
  retry: RetryPolicy;
  onRetry?: (info: RetryInfo) => void;
  userAgent?: string;
  /** Sent as Accept. */
  accept: string;
}

/** One attempt as it ended, for a caller that sizes its concurrency by it (src/core/import/concurrency-limit.ts). */
export interface AttemptInfo {
  ms: number;
  status?: number;
  /** networkErrorReason's name when there was no answer: "timeout", "ECONNRESET"... */
  reason?: string;
}

/** Called as an attempt leaves; returns the function that hears how it ended. */
export type AttemptListener = () => (attempt: AttemptInfo) => void;

export type SendResult =
  | {
      type: 'response';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: ReadBody;
      retries: number;
    }
  | {
      type: 'failed';
      status?: number;
      reason: string;
      message: string;
      retries: number;
      cause: FailureCause;
      body?: ReadBody;
      contentType?: string /** `message` without the status in front or the retries after. */;
      detail: string;
    };

export class RetryingTransport {
  readonly stats = { requests: 0, retries: 0 };
  readonly gate = new PauseGate();
  readonly #pool: Pool;
  readonly #options: TransportOptions;
  readonly #destroyed = new AbortController();
  /** Ends every wait (pause gate, backoff) but no request on the wire: a graceful stop sends nothing new. */
  readonly #waitsStopped = new AbortController();
  /** Applied to everything the server sent (body, every header) and to network errors, before anyone reads it. */
  readonly #mask: Redactor;
  /** True once any response came back: from then on a refused connection is a server restarting, worth the backoff. */
  #reached = false;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#mask = redactor([options.token]);
    this.#pool = new (undiciPool())(options.baseUrl.origin, {
      connections: Math.max(1, options.connections),
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs },
    });
  }

  /**
   * POST `body` to `relativePath` under the base URL's path (a base path like /api/ is kept). `onAttempt` is called
   * as each attempt leaves and returns what hears how it ended and how long it took (waiting at the pause gate or in
   * a backoff not included).
   */
  async post(
    relativePath: string,
    body: string | Uint8Array,
    signal?: AbortSignal,
    onAttempt?: AttemptListener,
    successKeepBytes = ERROR_BODY_KEEP_BYTES,
  ): Promise<SendResult> {
    // Joined as text, not resolved with new URL(): resolution would collapse a "%2E%2E" customer id into "..".
    const basePath = this.#options.baseUrl.pathname;
    const path = `${basePath.endsWith('/') ? basePath : `${basePath}/`}${relativePath}`;
    const stop = anySignal(signal, this.#destroyed.signal);
    const waits = anySignal(stop, this.#waitsStopped.signal);
    const policy = this.#options.retry;
    const maxRetryAfter = policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    let last: Extract<SendResult, { type: 'failed' }> | undefined;
    for (let attempt = 0; ; attempt++) {
      // a first attempt through an open gate was already dispatched: it goes, like one on the wire
      const gateSignal = attempt === 0 && this.gate.remainingMs() === 0 ? stop : waits;
      if (!(await this.gate.wait(gateSignal))) return this.#stopped(last, attempt);
      let delay: number;
      this.stats.requests++;
      if (attempt > 0) this.stats.retries++;
      const ended = onAttempt?.();
      const sentAt = performance.now();
      try {
        const response = await undiciRequest().call(this.#pool, {
          method: 'POST',
          path,
          body,
          headers: this.#headers(),
          headersTimeout: this.#options.timeoutMs,
          bodyTimeout: this.#options.timeoutMs,
        });
        const status = response.statusCode;
        this.#reached = true;
        const retryable = isRetryableStatus(status, policy);
        const keep = status >= 200 && status < 300 && !retryable ? successKeepBytes : ERROR_BODY_KEEP_BYTES;
        // the whole body within the attempt's timeout too, not only each gap (a trickle would never end)
        const read = await readBodyCapped(response.body, keep, undefined, this.#options.timeoutMs);
        const text = read.truncated ? redactCutText(read.text, this.#mask) : this.#mask(read.text);
        const read2 = { ...read, text };
        ended?.({ ms: performance.now() - sentAt, status });
        const headers = redactHeaders(response.headers, this.#mask);
        if (!retryable) return { type: 'response', status, headers, body: read2, retries: attempt };
        const contentType = headerValue(headers, 'content-type');
        const retryAfter = parseRetryAfter(headers['retry-after']);
        const detail = describeErrorBody(read2, contentType);
        const cause: FailureCause = { kind: 'http', status, retries: attempt, gaveUp: false, reachedServer: true };
        last = {
          type: 'failed',
          status,
          reason: String(status),
          message: `HTTP ${status}: ${detail}`,
          detail,
          retries: attempt,
          cause,
          body: read2,
          contentType,
        };
        if (retryAfter !== undefined && retryAfter > maxRetryAfter) {
          // nothing else of this client goes out during the wait asked for (429 or 503 alike): the caller decides
          // whether to stop (the import does) rather than requests slipping out as soon as this one failed
          this.gate.pauseFor(retryAfter);
          const wait = `the server asked to wait ${formatWait(retryAfter)} (Retry-After), longer than the ${formatDuration(maxRetryAfter)} memberctl waits; ${detail}`;
          return {
            ...last,
            cause: { ...cause, retryAfterMs: retryAfter, maxRetryAfterMs: maxRetryAfter },
            message: `HTTP ${status}: ${wait}`,
            detail: wait,
          };
        }
        delay = retryAfter ?? backoffDelay(attempt + 1, policy);
        // One 429 pauses every request to this server, not only this one.
        if (status === 429) this.gate.pauseFor(delay);
      } catch (error) {
        const reason = networkErrorReason(error);
        ended?.({ ms: performance.now() - sentAt, reason });
        const message = this.#mask(describeNetworkError(error));
        last = {
          type: 'failed',
          reason,
          message,
          detail: message,
          retries: attempt,
          cause: networkCause(error, attempt),
        };
        if (this.#destroyed.signal.aborted)
          return {
            ...last,
            cause: { ...last.cause, kind: 'cancelled' },
            message: `cancelled: ${message}`,
            detail: `cancelled: ${message}`,
          };
        if (!isRetryableError(error, policy)) return last;
        delay = backoffDelay(attempt + 1, policy);
      }
      // Never reached yet (a refused port, a host that does not answer): a few quick retries, not the full backoff.
      const limit =
        this.#reached || last.cause.reachedServer
          ? policy.retries
          : Math.min(policy.retries, policy.unreachedRetries ?? policy.retries);
      if (attempt >= limit) {
        return { ...last, cause: { ...last.cause, gaveUp: true }, message: `${last.message} (${gaveUpText(attempt)})` };
      }
      if (waits.aborted) return this.#stopped(last, attempt);
      this.#options.onRetry?.({ attempt: attempt + 1, delayMs: delay, reason: last.reason });
      if (!(await sleep(delay, waits))) return this.#stopped(last, attempt);
    }
  }

  /** Graceful: waits for requests in flight, then closes the sockets. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * A graceful stop: every request waiting (at the pause gate, in a backoff) ends now as not sent, and none
   * waits or retries from here on; requests on the wire are left to be answered.
   */
  stopWaiting(): void {
    this.#waitsStopped.abort();
  }

  /** At once: wakes every waiting retry and fails requests in flight (a second Ctrl-C). */
  async destroy(): Promise<void> {
    this.#destroyed.abort();
    await this.#pool.destroy();
  }

  #headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: this.#options.accept,
      authorization: `Bearer ${this.#options.token}`,
      'user-agent': this.#options.userAgent ?? defaultUserAgent(),
    };
  }

  /** The caller stopped us while waiting; `retriesMade` retries were dispatched so far. */
  #stopped(last: Extract<SendResult, { type: 'failed' }> | undefined, retriesMade: number): SendResult {
    if (!last) {
      const message = 'not sent: stopped before the request';
      return {
        type: 'failed',
        reason: 'stopped',
        message,
        detail: message,
        retries: 0,
        cause: { kind: 'stopped', retries: 0, gaveUp: false, reachedServer: false },
      };
    }
    const message = `stopped before retry ${retriesMade + 1} (last attempt: ${last.message})`;
    return {
      ...last,
      reason: 'stopped',
      message,
      detail: message,
      retries: retriesMade,
      cause: { ...last.cause, kind: 'stopped', retries: retriesMade },
    };
  }
}
