/**
 * Naming failures: a short reason for retry events ("503", "ECONNRESET", "timeout") and a one-line message for
 * humans. undici wraps socket errors (UND_ERR_SOCKET with the system error as cause), so both levels are checked.
 */
import { cleanMessage, summarizeBody, tryParseJson, type ReadBody } from './response-body.js';
import type { RetryPolicy } from './retry-policy.js';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  // Walk a short cause chain: undici's SocketError carries the system error (ECONNRESET) as its cause.
  for (let depth = 0; depth < 3 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

export function isRetryableError(error: unknown, policy: RetryPolicy): boolean {
  return errorCodes(error).some((code) => policy.errorCodes.includes(code));
}

/** "timeout", or the most specific system code (ECONNRESET over UND_ERR_SOCKET), or "network". */
export function networkErrorReason(error: unknown): string {
  const codes = errorCodes(error);
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout';
  const system = codes.find((code) => /^E[A-Z]+$/.test(code));
  return system ?? codes[0] ?? 'network';
}

/**
 * Why a request has no final answer, as data: the clients and core decide on these fields (was anything sent?
 * how many retries?) and never parse the message back.
 */
export interface FailureCause {
  /** http: the last answer was an error status; network: no answer (timeout included); stopped: the caller stopped us between attempts; cancelled: destroyed mid-request. */
  kind: 'http' | 'network' | 'stopped' | 'cancelled';
  /** The last HTTP status, when there was one. */
  status?: number;
  /** The network error's code ("timeout", "ECONNREFUSED", "ENOTFOUND"...). */
  code?: string;
  /** Retries made before giving up or stopping. */
  retries: number;
  /** True when the retries ran out (the policy's limit was reached). */
  gaveUp: boolean;
  /** The server's Retry-After, when it asked for a wait longer than memberctl waits (then also that limit). */
  retryAfterMs?: number;
  maxRetryAfterMs?: number;
  /** False when no request reached the server (host not found, connection refused): nothing can have been stored. */
  reachedServer: boolean;
}

/** Codes that mean the request never reached the server: nothing was stored. */
const NOT_CONNECTED = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function networkCause(error: unknown, retries: number): FailureCause {
  const codes = errorCodes(error);
  return {
    kind: 'network',
    code: networkErrorReason(error),
    retries,
    gaveUp: false,
    reachedServer: !codes.some((code) => NOT_CONNECTED.has(code)),
  };
}

/** "gave up after 1 retry" / "gave up after 3 retries". */
export function gaveUpText(retries: number): string {
  return `gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'}`;
}

/** A short reason that is the same for every request failing the same way (no ports, ids or timings): what failures are counted by. */
export function causeKey(cause: FailureCause): string {
  const what =
    cause.status !== undefined
      ? `HTTP ${cause.status}`
      : cause.code === 'timeout'
        ? 'timeout'
        : `${FRIENDLY[cause.code ?? ''] ?? 'network error'}${cause.code && cause.code !== 'network' ? ` (${cause.code})` : ''}`;
  return cause.gaveUp ? `${what} (${gaveUpText(cause.retries)})` : what;
}

const FRIENDLY: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting to the server',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response body',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EPIPE: 'connection closed while sending',
};

export function describeNetworkError(error: unknown): string {
  const codes = errorCodes(error);
  const friendly = codes.map((code) => FRIENDLY[code]).find(Boolean);
  const raw = error instanceof Error ? error.message : String(error);
  const code = codes.find((c) => /^E[A-Z]+$/.test(c)) ?? codes[0];
  const text = friendly ?? cleanMessage(raw, 200);
  return code ? `${text} (${code})` : text;
}

/**
 * A one-line description of an error response body: the message of a JSON error (member error: name/message;
 * problem: title/detail), otherwise a summary of the text (an HTML page's title, never the page).
 */
export function describeErrorBody(body: ReadBody, contentType: string | undefined): string {
  const json = tryParseJson(body.text);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const pick = (key: string) => (typeof o[key] === 'string' && o[key] ? cleanMessage(o[key] as string) : undefined);
    const name = pick('name');
    const message = pick('message');
    // {"name": "Unauthorized", "message": "Unauthorized: token expired"} reads once, not "Unauthorized: Unauthorized: …"
    if (message) return name && !message.startsWith(name) ? `${name}: ${message}` : message;
    const title = pick('title');
    const detail = pick('detail');
    if (title || detail) return [title, detail].filter(Boolean).join(': ');
  }
  return summarizeBody(body, contentType);
}
