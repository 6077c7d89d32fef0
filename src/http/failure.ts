/**
 * Naming failures: a short reason for retry events ("503", "ECONNRESET", "timeout") and a one-line message for
 * humans. undici wraps socket errors (UND_ERR_SOCKET with the system error as cause), so both levels are checked.
 */
import { cleanMessage, summarizeBody, tryParseJson, type ReadBody } from './response-body.js';
import type { RetryPolicy } from './retry-policy.js';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

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
    if (message) return name ? `${name}: ${message}` : message;
    const title = pick('title');
    const detail = pick('detail');
    if (title || detail) return [title, detail].filter(Boolean).join(': ');
  }
  return summarizeBody(body, contentType);
}
