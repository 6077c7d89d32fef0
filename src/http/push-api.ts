/**
 * The push area's subscribe endpoint: POST {base}push/v1/customers/{customerId}/subscription.
 * Retried on 429/502/503/504 and connection errors: a subscription is idempotent by installationId.
 * A 500 is not retried: it is reported with the server's problem details.
 */
import { problemSchema, type ProblemDetails, type SubscriptionRequest } from '../schemas/index.js';
import { describeErrorBody, type FailureCause } from './failure.js';
import {
  cleanMessage,
  formatBytes,
  headerValue,
  SUBSCRIBE_ANSWER_MAX_BYTES,
  summarizeBody,
  tryParseJson,
  type ReadBody,
} from './response-body.js';
import type { Headers } from './redact.js';
import { pushRetryPolicy, type RetryPolicy } from './retry-policy.js';
import { RetryingTransport, type RetryInfo } from './transport.js';
import { unexpected } from './member-api.js';

export interface PushApiOptions {
  baseUrl: URL;
  token: string;
  timeoutMs: number;
  retry?: RetryPolicy;
  onRetry?: (info: RetryInfo) => void;
  userAgent?: string;
}

export type SubscribeResponse =
  | { kind: 'ok'; status: number }
  | { kind: 'problem'; status: number; problem: ProblemDetails }
  | { kind: 'auth'; status: 401 | 403; message: string; problem?: ProblemDetails }
  | {
      kind: 'failed';
      status?: number;
      message: string;
      retries: number;
      cause: FailureCause /** the message without status or retries */;
      detail: string;
      problem?: ProblemDetails;
    };

/** The path for a customer: the id is percent-encoded, so "/", "?", "#" and spaces stay inside the segment. */
export function subscriptionPath(customerId: string): string {
  // "." and ".." survive encodeURIComponent and would be read as path steps; %2E keeps them a plain segment.
  const segment =
    customerId === '.' || customerId === '..' ? customerId.replaceAll('.', '%2E') : encodeURIComponent(customerId);
  return `push/v1/customers/${segment}/subscription`;
}

export class PushApiClient {
  readonly #transport: RetryingTransport;

  constructor(options: PushApiOptions) {
    this.#transport = new RetryingTransport({
      ...options,
      retry: options.retry ?? pushRetryPolicy(),
      connections: 1,
      accept: 'application/json, application/problem+json',
    });
  }

  get stats(): { requests: number; retries: number } {
    return this.#transport.stats;
  }

  async subscribe(customerId: string, request: SubscriptionRequest, signal?: AbortSignal): Promise<SubscribeResponse> {
    const path = subscriptionPath(customerId);
    const sent = await this.#transport.post(
      path,
      JSON.stringify(request),
      signal,
      undefined,
      SUBSCRIBE_ANSWER_MAX_BYTES,
    );
    if (sent.type === 'failed') {
      const problem = sent.body ? parseProblem(sent.body, sent.status) : undefined;
      return {
        kind: 'failed',
        status: sent.status,
        message: sent.message,
        detail: sent.detail,
        retries: sent.retries,
        cause: sent.cause,
        ...(problem ? { problem } : {}),
      };
    }
    const { status, body } = sent;
    const contentType = headerValue(sent.headers, 'content-type');
    if (status >= 200 && status < 300) return body.truncated ? oversizeAnswer(sent) : { kind: 'ok', status };
    const problem = parseProblem(body, status) ?? synthesizedProblem(body, contentType, status, sent.headers);
    if (status === 401 || status === 403) {
      return { kind: 'auth', status, message: formatProblem(problem), problem };
    }
    if (status >= 400 && status < 500) return { kind: 'problem', status, problem };
    const cause: FailureCause = { kind: 'http', status, retries: sent.retries, gaveUp: false, reachedServer: true };
    return {
      kind: 'failed',
      status,
      message: formatProblem(problem),
      detail: problem.detail ?? '',
      retries: sent.retries,
      cause,
      problem,
    };
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }

  async destroy(): Promise<void> {
    await this.#transport.destroy();
  }
}

/**
 * A 2xx whose body passed what a subscribe answer may be: the server may have stored the subscription, but an
 * answer this broken confirms nothing (not confirmed: running the command again is safe, it is idempotent).
 */
function oversizeAnswer(sent: {
  status: number;
  body: ReadBody;
  retries: number;
  headers: Headers;
}): SubscribeResponse {
  const { status, body, retries } = sent;
  const summary = summarizeBody(body, headerValue(sent.headers, 'content-type'));
  const detail = `the body is larger than the ${formatBytes(SUBSCRIBE_ANSWER_MAX_BYTES)} a subscribe answer may be (${body.bytes} bytes read before giving up): ${summary}`;
  const cause: FailureCause = { kind: 'http', status, retries, gaveUp: false, reachedServer: true };
  return { kind: 'failed', status, message: `HTTP ${status} but ${detail}`, detail, retries, cause };
}

/** A JSON body with at least a title or detail, parsed as RFC 7807 problem details (content-type aside). */
function parseProblem(body: ReadBody, status: number | undefined): ProblemDetails | undefined {
  const parsed = problemSchema.safeParse(tryParseJson(body.text));
  if (!parsed.success || (!parsed.data.title && !parsed.data.detail)) return undefined;
  const clean = (v: string | undefined) => (v === undefined ? undefined : cleanMessage(v));
  return {
    type: clean(parsed.data.type),
    title: clean(parsed.data.title),
    status: parsed.data.status ?? status,
    detail: clean(parsed.data.detail),
    instance: clean(parsed.data.instance),
  };
}

/** A non-problem body (an HTML error page, plain text) summarized briefly into problem shape. */
function synthesizedProblem(
  body: ReadBody,
  contentType: string | undefined,
  status: number,
  headers: Record<string, string | string[] | undefined>,
): ProblemDetails {
  return { title: unexpected(status, headers), status, detail: describeErrorBody(body, contentType) };
}

/** "title: detail (status)", the form the CLI shows. */
export function formatProblem(problem: ProblemDetails): string {
  const text = [problem.title, problem.detail].filter(Boolean).join(': ') || 'no details';
  // A synthesized title already names the status ("HTTP 502"); saying it twice reads like a stutter.
  if (problem.status === undefined || problem.title?.startsWith(`HTTP ${problem.status}`)) return text;
  return `${text} (${problem.status})`;
}
