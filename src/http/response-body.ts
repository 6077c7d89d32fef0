/**
 * Reading and describing response bodies safely: always consumed (undici keeps a socket alive only when the body
 * was read to the end), capped (an error page can be megabytes), summarized (never dump raw HTML), and redacted
 * (a server that echoes the Authorization header must not make us print the token).
 */
import type { Dispatcher } from 'undici';

/** Error bodies: the first 64 KiB is kept for the message; past 1 MiB the socket is dropped rather than drained. */
export const ERROR_BODY_KEEP_BYTES = 64 * 1024;
const ERROR_BODY_DRAIN_BYTES = 1024 * 1024;
/** Success bodies are parsed whole; the subscribe answer (unspecified) is kept up to this. */
export const SUCCESS_BODY_MAX_BYTES = 64 * 1024 * 1024;
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

export async function readBodyCapped(
  body: Dispatcher.ResponseData['body'],
  keep: number,
  drain = Math.max(keep, ERROR_BODY_DRAIN_BYTES),
): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
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
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, truncated: bytes > kept };
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
