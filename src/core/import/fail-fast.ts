/**
 * A run that cannot succeed stops early. While no request has been answered usefully yet, each final failure is
 * looked at: when the first few all fail the same way, for a cause that retrying cannot fix (the endpoint is not
 * there, a redirect, the host does not resolve, the port refuses connections, TLS fails), the run is stopped with
 * a one-line diagnosis instead of sending every batch into the same wall. Any other answer (a 200, a 400 for a
 * record, a 503 that may pass) disarms it for the rest of the run: from then on failures are ordinary failures.
 */
import { causeKey, type FailureCause } from '../../http/failure.js';
import type { ImportResponse } from './types.js';

/** Final failures, all alike, that stop the run: enough to rule out one unlucky request, few enough to stop early. */
export const FAIL_FAST_AFTER = 3;

const NOT_FOUND = new Set([404, 405]);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** What kind of wall a failure hit, when retrying cannot get past it; undefined when it may pass. */
export function unfixableKind(cause: FailureCause): string | undefined {
  if (cause.kind === 'http' && cause.status !== undefined) {
    if (NOT_FOUND.has(cause.status)) return `http-${cause.status}`;
    if (cause.status >= 300 && cause.status < 400) return `redirect-${cause.status}`;
    return undefined;
  }
  if (cause.kind !== 'network' || cause.code === undefined) return undefined;
  if (DNS.has(cause.code)) return 'dns';
  if (UNREACHABLE.has(cause.code)) return cause.code;
  if (isTlsCode(cause.code)) return 'tls';
  return undefined;
}

function isTlsCode(code: string): boolean {
  return code === 'EPROTO' || /CERT|TLS|SSL/.test(code);
}

/** What to check, per kind of wall. */
function advice(kind: string): string {
  if (kind.startsWith('http-'))
    return 'the import endpoint is not at this base URL: check its path (memberctl config check tests it)';
  if (kind.startsWith('redirect-'))
    return 'the server redirects: use the address it redirects to as the base URL (https://?), memberctl does not follow redirects with a token';
  if (kind === 'dns')
    return "the host name does not resolve: check the base URL's host (memberctl config check tests it)";
  if (kind === 'tls')
    return 'the TLS handshake fails: check https:// versus http://, the port, and the certificate (memberctl config check tests it)';
  return 'nothing accepts connections there: is the server running, and are the host and port right? (memberctl config check tests it)';
}

export interface Diagnosis {
  message: string;
  short: string;
}

export class FailFast {
  #armed = true;
  #kind: string | undefined;
  #seen = 0;

  constructor(private readonly after: number = FAIL_FAST_AFTER) {}

  /**
   * Called with every final response, in the order they come. Returns the diagnosis when the run should stop:
   * one line for humans ("stopped after the first 3 batches all failed the same way: HTTP 404 (…); the import
   * endpoint is not …") and the cause in a few words, what the records not sent are counted by.
   */
  observe(response: ImportResponse): Diagnosis | undefined {
    if (!this.#armed) return undefined;
    if (response.kind !== 'failed') {
      // the server answered usefully (or refused the token, which has its own stop): it can be reached
      if (response.kind !== 'auth') this.#armed = false;
      return undefined;
    }
    if (response.cause.kind === 'stopped' || response.cause.kind === 'cancelled') return undefined;
    const kind = unfixableKind(response.cause);
    if (kind === undefined || (this.#kind !== undefined && kind !== this.#kind)) {
      this.#armed = false;
      return undefined;
    }
    this.#kind = kind;
    if (++this.#seen < this.after) return undefined;
    this.#armed = false;
    return {
      message: `stopped after the first ${this.#seen} batches all failed the same way: ${response.message}; ${advice(kind)}`,
      short: causeKey(response.cause),
    };
  }
}
