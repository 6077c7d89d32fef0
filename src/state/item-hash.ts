/**
 * The fingerprint --changed-only compares: SHA-256 of the item's canonical JSON (object keys sorted by UTF-16
 * code units at every depth, no whitespace, undefined members left out as JSON.stringify does), truncated to
 * 16 bytes. Canonical, so a CSV whose columns moved or a JSON export that orders keys differently does not look
 * changed. 128 bits: a collision (a changed member taken for unchanged) is out of reach even for billions of rows.
 */
import { createHash } from 'node:crypto';

export const ITEM_HASH_BYTES = 16;
/** Stored in the state file: a state written with another hash is not comparable. */
export const ITEM_HASH_NAME = 'sha256-128/canonical-json-v1';

export function itemHash(item: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(item)).digest().subarray(0, ITEM_HASH_BYTES);
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const element: unknown = value[i];
      // JSON.stringify writes undefined (and functions) in arrays as null
      out += element === undefined || typeof element === 'function' ? 'null' : canonicalJson(element);
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  // Object.keys includes an own "__proto__" key (metadata may hold one); sort() compares UTF-16 code units
  const keys = Object.keys(object).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = object[key];
    if (member === undefined || typeof member === 'function') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
    first = false;
  }
  return `${out}}`;
}
