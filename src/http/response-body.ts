/**
 * Reading and describing response bodies safely: always consumed (undici keeps a socket alive only when the body
 * was read to the end), capped (an error page can be megabytes), summarized (never dump raw HTML), and redacted
 * (a server that echoes the Authorization header must not make us print the token).
 */
import type { Dispatcher } from 'undici';

/** Error bodies: the first 64 KiB is kept for the message; past 1 MiB the socket is dropped rather than drained. */
export const ERROR_BODY_KEEP_BYTES = 64 * 1024;
const ERROR_BODY_DRAIN_BYTES = 1024 * 1024;
/**
 * The subscribe answer: the spec shows no success body and memberctl reads nothing from it (the status is the
 * answer). An echo of the subscription (a token handle of at most 255 characters, an installation id of at most
 * 50) fits in 2 KiB even as \u escapes; a 2xx body past 64 KiB, as much as an error body keeps, is no answer.
 */
export const SUBSCRIBE_ANSWER_MAX_BYTES = 64 * 1024;
/**
 * An import result is two counts and at most one skipped entry per item sent (memberId: 36 characters, 216 bytes
 * even as \u escapes; reason: unbounded in the spec), so its size follows the batch: 4 KiB per item, 1 MiB at least.
 * A 200 body past this fails the batch rather than filling memory (docs/safety.md "Work per cell").
 */
export const IMPORT_RESULT_BYTES_PER_ITEM = 4 * 1024;
export const IMPORT_RESULT_MIN_BYTES = 1024 * 1024;

export function importResultMaxBytes(items: number): number {
  return Math.max(IMPORT_RESULT_MIN_BYTES, items * IMPORT_RESULT_BYTES_PER_ITEM);
}

export interface ReadBody {
  text: string;
  /** Bytes the server sent (as far as read). */
  bytes: number;
  /** True when text holds only the first `keep` bytes. */
  truncated: boolean;
}

/**
 * A body that did not arrive whole within the attempt's timeout. It carries undici's code for a body timeout
 * (`UND_ERR_BODY_TIMEOUT`): it is one, for the whole body instead of a gap, so it is retried and named alike.
 */
export class BodyDeadlineError extends Error {
  readonly code = 'UND_ERR_BODY_TIMEOUT';
  constructor(ms: number) {
    super(`the response body did not arrive within ${ms} ms`);
    this.name = 'BodyDeadlineError';
  }
}

/**
 * The body, its first `keep` bytes kept and at most `drain` read. `deadlineMs`: the whole body must arrive within
 * it (undici's bodyTimeout bounds each gap only, so a server trickling a byte just inside it would hold the read
 * for ever); past it the read fails with a BodyDeadlineError.
 */
export async function readBodyCapped(
  body: Dispatcher.ResponseData['body'],
  keep: number,
  drain = Math.max(keep, ERROR_BODY_DRAIN_BYTES),
  deadlineMs?: number,
): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  const deadline =
    deadlineMs === undefined
      ? undefined
      : setTimeout(() => body.destroy(new BodyDeadlineError(deadlineMs)), deadlineMs);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (kept < keep) {
        const part = chunk.length <= keep - kept ? chunk : chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (bytes > drain) {
        // Leaving the loop destroys the stream: this socket is lost, which is cheaper than reading megabytes.
        break;
      }
    }
  } finally {
    clearTimeout(deadline);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, truncated: bytes > kept };
}

/** "1 MiB", "1.5 MiB", "64 KiB": a cap as a person reads it. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}

export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Parses JSON when the body looks like JSON (content-type aside: servers mislabel); undefined otherwise. */
export function tryParseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

const MAX_SUMMARY_CHARS = 200;

/**
 * A short, single-line description of a body that is not the JSON we expected: an HTML page's <title> (or its
 * text without tags), otherwise the text's first characters; with the content type and size.
 */
export function summarizeBody(body: ReadBody, contentType: string | undefined): string {
  const mime = contentType?.split(';', 1)[0]?.trim().toLowerCase() || 'no content type';
  if (body.bytes === 0) return 'empty body';
  let text = body.text;
  if (/<html|<!doctype|<body|<title/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
    text = title ?? text.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
  }
  // Control characters (a binary body, ANSI escapes) must not reach a terminal.
  text = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > MAX_SUMMARY_CHARS) text = `${text.slice(0, MAX_SUMMARY_CHARS)}…`;
  const size = `${body.bytes} byte${body.bytes === 1 ? '' : 's'}`;
  return text ? `${text} (${mime}, ${size})` : `${mime}, ${size}`;
}

/** One line, control characters removed, bounded: for messages taken from a JSON error body. */
export function cleanMessage(text: string, max = 500): string {
  const line = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
