/**
 * Keys given twice in one JSON object. JSON.parse keeps the last value without a word, so `{"email": "a@x",
 * "email": "b@x"}` would send b@x; memberctl refuses such a record instead (docs/decisions.md).
 *
 * The check costs little on records without a repeat: every key in the text ends in `"`, optional whitespace and
 * `:`, so the count of such marks (colons found by indexOf) is at least the number of keys written (a string
 * value may hold `":` too), and the parsed value's own keys are at most the keys written.
 * Equal counts prove that no key repeats. Only a record whose counts differ is scanned exactly.
 */
import { jsonStringEnd, valuePath, type JsonFrame } from '../schemas/json-text.js';

/** A key given a second time: its dotted path ("address.city", "devices[1].token") and its line in the text (0-based). */
export interface DuplicateKey {
  path: string;
  /** The repeated key as written in its object. */
  key: string;
  /** The nesting: 0 for a key of the top-level object. */
  depth: number;
  line: number;
}

/** The first key repeated within one object of `text`, whose parse is `value`; undefined when none is. */
export function firstDuplicateKey(text: string, value: unknown): DuplicateKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (keyMarks(text) === ownKeys(value)) return undefined;
  return findDuplicateKeys(text, 1)[0];
}

/** Every key repeated within one object of `text` (valid JSON), in the order found, up to `limit`. */
export function duplicateKeys(text: string, value: unknown, limit = 20): DuplicateKey[] {
  if (typeof value !== 'object' || value === null) return [];
  if (keyMarks(text) === ownKeys(value)) return [];
  return findDuplicateKeys(text, limit);
}

/** Colons whose last non-blank character before them is a quote: every key's, and a few inside strings. */
function keyMarks(text: string): number {
  let marks = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    let before = at - 1;
    let c = text.charCodeAt(before);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(--before);
    if (c === 0x22) marks++;
  }
  return marks;
}

/** Keys of every object in a parsed JSON value (JSON.parse gives own, enumerable, plain properties only). */
function ownKeys(value: object): number {
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) keys += ownKeys(item);
    return keys;
  }
  for (const key in value) {
    keys++;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) keys += ownKeys(item);
  }
  return keys;
}

interface Frame extends JsonFrame {
  /** The keys seen so far: an object's; null for an array. */
  keys: Set<string> | null;
  expectingKey: boolean;
}

/** The exact scan: strings, nesting and keys, by JSON's grammar (the text is known to be valid JSON). */
function findDuplicateKeys(text: string, limit: number): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: Frame[] = [];
  let line = 0;
  for (let i = 0; i < text.length && found.length < limit; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22) {
      const end = jsonStringEnd(text, i);
      if (top?.keys && top.expectingKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.last = key;
        if (top.keys.has(key)) found.push({ path: valuePath(top), key, depth: stack.length - 1, line });
        else top.keys.add(key);
        top.expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      const path = valuePath(top);
      stack.push({ keys: c === 0x7b ? new Set() : null, path, last: '', index: 0, expectingKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c && top) {
      if (top.keys) top.expectingKey = true;
      else top.index++;
    } else if (c === 0x0a) line++;
  }
  return found;
}
