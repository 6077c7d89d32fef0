/**
 * Low-level request/response helpers: content types, bounded body reading, and the two error shapes the API
 * uses (the member area's error object, the push area's RFC 7807 problem object).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

/** Past this many bytes beyond the limit the sandbox stops draining a too-large body and closes the connection. */
const DRAIN_CAP_BYTES = 64 * 1024 * 1024;

export type ContentTypeCheck = { ok: true } | { ok: false; reason: string };

/**
 * The media types ASP.NET-style JSON endpoints accept: application/json, text/json, application/*+json
 * (and whatever `extra` adds), any case, with or without a charset parameter, which must then be UTF-8.
 */
export function checkContentType(header: string | undefined, extra: string[] = []): ContentTypeCheck {
  if (!header) return { ok: false, reason: 'missing Content-Type (expected application/json)' };
  const [type = '', ...params] = header.split(';').map((part) => part.trim());
  const media = type.toLowerCase();
  const json =
    media === 'application/json' || media === 'text/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(media);
  if (!json && !extra.includes(media))
    return { ok: false, reason: `unsupported Content-Type ${type || '(empty)'} (expected application/json)` };
  for (const param of params) {
    const [name = '', value = ''] = param.split('=').map((part) => part.trim().replace(/^"|"$/g, ''));
    if (name.toLowerCase() === 'charset' && !['utf-8', 'utf8'].includes(value.toLowerCase())) {
      return { ok: false, reason: `unsupported charset ${value} (only UTF-8)` };
    }
  }
  return { ok: true };
}

/** The client went away before its body was complete: nothing to answer. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
}

export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too-large'; bytes: number; drained: boolean };

/**
 * Reads the body, keeping at most `limit` bytes. A larger body is drained without being kept (so the client,
 * still writing, reads the 413 instead of a connection reset); one absurdly larger is cut off.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (!tooLarge && bytes > limit) {
        tooLarge = true;
        chunks.length = 0;
      }
      if (!tooLarge) chunks.push(chunk);
      else if (bytes > limit + DRAIN_CAP_BYTES) {
        cleanup();
        req.pause();
        resolve({ kind: 'too-large', bytes, drained: false });
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(
        tooLarge ? { kind: 'too-large', bytes, drained: true } : { kind: 'ok', body: Buffer.concat(chunks, bytes) },
      );
    };
    const onError = () => {
      cleanup();
      reject(new ClientGoneError('the client closed the connection before its body was complete'));
    };
    const onClose = () => {
      if (!req.complete) onError();
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The body as text; a UTF-8 byte order mark is allowed (as .NET servers allow it) and dropped. */
export function utf8Text(body: Buffer): string {
  const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return body.toString('utf8', start);
}

/** Reads and throws away a body we will not use, so an early answer does not reset a client still sending. */
export async function drainBody(req: IncomingMessage): Promise<boolean> {
  const result = await readBody(req, 0);
  return result.kind === 'ok' || result.drained;
}

/** A JSON body with its length; `headers` may name another JSON content type (problem+json). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** Member area error body: {name, message, details}. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  details: unknown = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { name: errorName(status), message, details }, headers);
}

export interface ProblemExtras {
  [key: string]: unknown;
}

/** Push area (and everything outside the member area): RFC 7807 application/problem+json. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  instance: string,
  extras: ProblemExtras = {},
  headers: Record<string, string> = {},
): void {
  const body = {
    type: `https://developer.mozilla.org/docs/Web/HTTP/Status/${status}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    instance,
    ...extras,
  };
  sendJson(res, status, body, { 'content-type': 'application/problem+json; charset=utf-8', ...headers });
}

/** "Bad Request" → "BadRequest": the error object's name, in the style of .NET exception-ish names. */
export function errorName(status: number): string {
  if (status === 400) return 'ValidationError';
  return (STATUS_CODES[status] ?? 'Error').replace(/[^A-Za-z]/g, '') || 'Error';
}
