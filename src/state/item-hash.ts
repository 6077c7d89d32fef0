/**
 * The fingerprint --changed-only compares: SHA-256 of the item's canonical JSON (object keys sorted by UTF-16
 * code units at every depth, no whitespace, undefined members left out as JSON.stringify does), as the first 22
 * characters of its base64 (132 bits). Canonical, so a CSV whose columns moved or a JSON export that orders keys
 * differently does not look changed. 132 bits: a collision (a changed member taken for unchanged) is out of
 * reach even for billions of rows.
 *
 * This runs once per row of a --changed-only pass, so it is written for speed: one-shot crypto.hash (no Hash
 * object per row), quoted keys memoized (items share a few dozen key names), no sort when keys are in order.
 */
import { hash } from 'node:crypto';

export const ITEM_HASH_CHARS = 22;
/** Stored in the state file: a state written with another hash is not comparable. */
export const ITEM_HASH_NAME = 'sha256-base64-22/canonical-json+exact-text-v1';

export function itemHash(item: unknown): string {
  return textHash(canonicalJson(item));
}

/**
 * The hash of an item's JSON text exactly as sent. Compared first: the same export through the same mapping gives
 * the same text, so an unchanged row costs one hash of a string the pipeline already built, and the canonical
 * form is only computed when the text differs (a changed row, or the same item with its keys in another order).
 */
export function textHash(text: string): string {
  return hash('sha256', text, 'base64').slice(0, ITEM_HASH_CHARS);
}

const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 10_000;

function quoted(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, text);
  }
  return text;
}

function sortedKeys(object: object): string[] {
  // Object.keys includes an own "__proto__" key (metadata may hold one)
  const keys = Object.keys(object);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) return keys.sort(); // compares UTF-16 code units
  }
  return keys;
}

export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value) ?? 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      // JSON.stringify writes undefined (and functions) in arrays as null
      out +=
        (i > 0 ? ',' : '') + (element === undefined || typeof element === 'function' ? 'null' : canonicalJson(element));
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  for (const key of sortedKeys(object)) {
    const member = object[key];
    if (member === undefined || typeof member === 'function') continue;
    out += (out.length > 1 ? ',' : '') + quoted(key) + canonicalJson(member);
  }
  return `${out}}`;
}
