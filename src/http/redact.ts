/**
 * Keeping a secret out of everything a server sends back. A hostile or careless server can echo the bearer token
 * in a body, a header or a redirect's Location, raw or encoded; the transport passes every such text through one
 * Redactor before anything else reads it, so no message, rejects file, report or log built from it can carry it.
 */

export interface Redactor {
  (text: string): string;
  /**
   * The most characters one secret takes in any form it is masked in (0 without secrets): a text cut off at its
   * end may end in fewer than that of a secret's beginning, which no mask can recognise (see redactCutText).
   */
  readonly longestForm: number;
}

/** A secret this long cannot turn up inside ordinary words by chance. */
const SAFE_SUBSTRING_LENGTH = 16;
const MASK = '[redacted]';

const hex = (code: number) => code.toString(16).padStart(2, '0');

/**
 * One character of the secret as a server may write it: itself, percent-encoded (%2B, %2b; UTF-8 bytes for
 * non-ASCII), as a JSON \u escape, or backslash-escaped (JSON's "\/"). Matching is case-insensitive: a false match
 * only hides more.
 */
function characterPattern(char: string): string {
  const literal = char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const percent = [...Buffer.from(char, 'utf8')].map((byte) => `%${hex(byte)}`).join('');
  const code = char.codePointAt(0)!;
  const unicode = code <= 0xffff ? `\\\\u${code.toString(16).padStart(4, '0')}` : undefined;
  const escaped = /[A-Za-z0-9]/.test(char) ? undefined : `\\\\${literal}`;
  return `(?:${[literal, percent, unicode, escaped].filter(Boolean).join('|')})`;
}

/** How many characters `secret` takes in its longest form (every character in the longest of its forms). */
function longestFormLength(secret: string): number {
  let length = 0;
  for (const char of secret) {
    const bytes = Buffer.byteLength(char, 'utf8');
    length += Math.max(char.length, 3 * bytes, char.length === 1 ? 6 : 0, 2);
  }
  return length;
}

function secretPattern(secret: string): string {
  const body = [...secret].map(characterPattern).join('');
  // A short secret (a test token like "t") only where it stands alone, so "Gateway" does not become "Ga[redacted]eway".
  return secret.length >= SAFE_SUBSTRING_LENGTH ? body : `(?<![A-Za-z0-9])${body}(?![A-Za-z0-9])`;
}

/** The fewest characters of a secret's beginning masked where a text was clipped with "…" after them. */
const CLIPPED_PREFIX_LENGTH = 4;

/**
 * A beginning of the secret cut off with "…": every message that quotes a long value clips it so ("unknown column
 * "eyJhbGciOi…""), and a token file given as the input by mistake is quoted that way. What is left shows most of
 * the token yet is no whole token; a false match only hides a few more characters of a clipped quote.
 */
function clippedPrefixPattern(secret: string): string | undefined {
  const chars = [...secret];
  if (chars.length <= CLIPPED_PREFIX_LENGTH) return undefined;
  let rest = '';
  for (let i = chars.length - 1; i >= CLIPPED_PREFIX_LENGTH; i--) rest = `(?:${characterPattern(chars[i]!)}${rest})?`;
  const head = chars.slice(0, CLIPPED_PREFIX_LENGTH).map(characterPattern).join('');
  return `(?<![A-Za-z0-9])${head}${rest}…`;
}

/** One function for all the secrets of a client (the member token, the push token): every form of each is masked. */
export function redactor(secrets: readonly (string | undefined)[]): Redactor {
  const present = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))];
  if (present.length === 0) return Object.assign((text: string) => text, { longestForm: 0 });
  // Longest first: a secret that contains another is masked whole; whole secrets before clipped beginnings.
  const sorted = present.sort((a, b) => b.length - a.length);
  const clipped = sorted.map(clippedPrefixPattern).filter((p) => p !== undefined);
  const pattern = new RegExp([...sorted.map(secretPattern), ...clipped].join('|'), 'gi');
  const mask = (text: string) => (text.length === 0 ? text : text.replace(pattern, MASK));
  return Object.assign(mask, { longestForm: Math.max(...present.map(longestFormLength)) });
}

/**
 * A text the reader cut off (a capped body) masked, and its last characters dropped: where the cut went through
 * a secret, what was kept of it is a beginning the mask cannot tell from other text (up to all but one character
 * of an opaque token). Dropping as many characters as a secret's longest form removes any such beginning (and the
 * character the cut may have split); a message shows only the first few hundred characters of a capped body anyway.
 */
export function redactCutText(text: string, mask: Redactor): string {
  const masked = mask(text);
  return mask.longestForm === 0 ? masked : masked.slice(0, Math.max(0, masked.length - mask.longestForm));
}

/** Masks one secret in one text (see redactor). */
export function redact(text: string, secret: string): string {
  return redactor([secret])(text);
}

export type Headers = Record<string, string | string[] | undefined>;

/** Every header value masked: any of them may end up in a message (Location does, in "redirected to …"). */
export function redactHeaders(headers: Headers, mask: Redactor): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = Array.isArray(value) ? value.map(mask) : value === undefined ? undefined : mask(value);
  }
  return out;
}
