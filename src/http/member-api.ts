/**
 * The member area's import endpoint: POST {base}member/v1/members/import, answered as one typed outcome.
 * Retrying this POST is deliberate: the import is an upsert, so sending the same batch twice leaves the same state.
 */
import {
  importResultSchema,
  memberErrorSchema,
  type ImportResult,
  type MemberError,
} from '../schemas/import-result.js';
import { describeErrorBody, type FailureCause } from './failure.js';
import {
  cleanMessage,
  formatBytes,
  headerValue,
  importResultMaxBytes,
  summarizeBody,
  tryParseJson,
} from './response-body.js';
import { RetryingTransport, type AttemptListener, type TransportOptions } from './transport.js';

export type { RetryInfo } from './transport.js';
export type { FailureCause } from './failure.js';

/** The transport's options; the client sets Accept itself. */
export type MemberApiOptions = Omit<TransportOptions, 'accept'>;

/**
 * One batch's final answer, after the client's retries (429 pause, Retry-After, backoff on 5xx and network errors).
 * `failed` carries its cause as data; `message` is the same for humans.
 */
export type ImportResponse =
  | { kind: 'ok'; status: 200; result: ImportResult }
  | { kind: 'bad-request'; status: 400; error: MemberError }
  | { kind: 'too-large'; status: 413; message: string }
  | { kind: 'auth'; status: 401 | 403; message: string }
  | { kind: 'failed'; status?: number; message: string; retries: number; cause: FailureCause };

export const IMPORT_PATH = 'member/v1/members/import';

export class MemberApiClient {
  readonly #transport: RetryingTransport;

  constructor(options: MemberApiOptions) {
    this.#transport = new RetryingTransport({ ...options, accept: 'application/json' });
  }

  /** Requests dispatched (retries included) and retries made, over the client's life. */
  get stats(): { requests: number; retries: number } {
    return this.#transport.stats;
  }

  /**
   * Sends one batch. `body` is the JSON array as UTF-8 (the batcher encoded it once, at its measured size). `signal` stops waiting (a
   * backoff or a 429 pause ends at once with `failed`) but lets a request already on the wire settle. `onAttempt`
   * hears each attempt leave, then its status (or failure) and duration. `items` (the records in `body`) sizes the
   * largest import result read: a 200 body past it fails the batch.
   */
  async postImport(
    body: Uint8Array,
    signal?: AbortSignal,
    onAttempt?: AttemptListener,
    items = 1,
  ): Promise<ImportResponse> {
    const resultMaxBytes = importResultMaxBytes(items);
    const sent = await this.#transport.post(IMPORT_PATH, body, signal, onAttempt, resultMaxBytes);
    if (sent.type === 'failed') {
      return {
        kind: 'failed',
        ...(sent.status === undefined ? {} : { status: sent.status }),
        message: sent.message,
        retries: sent.retries,
        cause: sent.cause,
      };
    }
    const { status, body: read, retries } = sent;
    const contentType = headerValue(sent.headers, 'content-type');
    const cause: FailureCause = { kind: 'http', status, retries, gaveUp: false, reachedServer: true };
    if (status === 200) {
      if (read.truncated) {
        // cut off at the cap, the JSON cannot parse: say so, rather than what zod makes of the cut text
        const limit = formatBytes(resultMaxBytes);
        const message = `HTTP 200 but the body is larger than the ${limit} an import result may be (${read.bytes} bytes read before giving up): ${summarizeBody(read, contentType)}`;
        return { kind: 'failed', status, retries, cause, message };
      }
      const parsed = importResultSchema.safeParse(tryParseJson(read.text));
      if (parsed.success) return { kind: 'ok', status: 200, result: parsed.data };
      const what = parsed.error.issues[0];
      const where = what ? ` (${what.path.join('.') || 'body'}: ${what.message})` : '';
      return {
        kind: 'failed',
        status,
        retries,
        cause,
        message: `HTTP 200 but the body is not an import result${where}: ${summarizeBody(read, contentType)}`,
      };
    }
    if (status === 400) {
      const parsed = memberErrorSchema.safeParse(tryParseJson(read.text));
      const error: MemberError = parsed.success
        ? { ...parsed.data, name: cleanMessage(parsed.data.name), message: cleanMessage(parsed.data.message) }
        : { name: 'BadRequest', message: describeErrorBody(read, contentType), details: null };
      return { kind: 'bad-request', status: 400, error };
    }
    const detail = describeErrorBody(read, contentType);
    if (status === 413) return { kind: 'too-large', status: 413, message: `HTTP 413: ${detail}` };
    if (status === 401 || status === 403) return { kind: 'auth', status, message: `HTTP ${status}: ${detail}` };
    return { kind: 'failed', status, retries, cause, message: `${unexpected(status, sent.headers)}: ${detail}` };
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }

  /** Ends waiting retries and pauses now, leaving requests on the wire to be answered (a graceful stop). */
  stopWaiting(): void {
    this.#transport.stopWaiting();
  }

  /** Fails requests in flight and wakes waiting retries at once (second Ctrl-C). */
  async destroy(): Promise<void> {
    await this.#transport.destroy();
  }
}

/** Names an unexpected status with the likely cause, so "404" reads as "check the base URL". */
export function unexpected(status: number, headers: Record<string, string | string[] | undefined>): string {
  if (status >= 300 && status < 400) {
    const location = headerValue(headers, 'location');
    return `HTTP ${status}: redirected${location ? ` to ${cleanMessage(location, 200)}` : ''} (check the base URL; memberctl does not follow redirects with a token)`;
  }
  if (status === 404 || status === 405) return `HTTP ${status} (check the base URL: the endpoint was not found there)`;
  return `HTTP ${status}`;
}
