/**
 * The admin API has no authentication (it listens on loopback), so a web page must not be able to drive it: a
 * browser on this machine can reach 127.0.0.1 too. Refused, before any admin handler runs:
 * - a Host that is neither an IP literal nor localhost: DNS rebinding (evil.example resolving to 127.0.0.1) needs a
 *   name, and the browser sends that name as Host;
 * - a cross-site request: an Origin other than the sandbox's own, or Sec-Fetch-Site cross-site / same-site
 *   (another port on localhost is "same-site");
 * - a call that changes state without Content-Type application/json: an HTML form or a "simple" fetch can send
 *   text/plain or form bodies without a CORS preflight, never JSON (and the sandbox answers no preflight).
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const READ_ONLY = new Set(['GET', 'HEAD']);

/** The name part of a Host header: "[::1]:7780" → "::1", "localhost:7780" → "localhost". */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!;
  return host.replace(/:\d+$/, '');
}

function isLocalName(host: string): boolean {
  const name = hostName(host).toLowerCase();
  return name === 'localhost' || isIP(name) !== 0;
}

/** Why this admin request is refused, or undefined when it may go on. */
export function adminRefusal(req: IncomingMessage): string | undefined {
  const host = req.headers.host ?? '';
  if (!isLocalName(host))
    return `the admin API answers only to localhost or an IP address, not Host "${host}" (DNS rebinding is refused)`;
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host))
    return `the admin API refuses cross-site requests (Origin ${origin})`;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site')
    return `the admin API refuses cross-site requests (Sec-Fetch-Site: ${site})`;
  if (!READ_ONLY.has(req.method ?? 'GET')) {
    const mime = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (mime !== 'application/json')
      return 'a call that changes the sandbox needs Content-Type: application/json (curl -H "content-type: application/json")';
  }
  return undefined;
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.host === host.toLowerCase();
  } catch {
    return false; // "null" (a sandboxed frame, a file:// page) and garbage
  }
}
