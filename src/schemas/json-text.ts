/**
 * Walking JSON text known to be valid, to say where a value stands (its dotted path): shared by the two scans that
 * name what JSON.parse changes without a word, a number a double cannot hold (exact-number.ts) and a key given
 * twice in one object (io/json-duplicate-keys.ts).
 */

/** Where the string starting at `start` (its opening quote) ends: its closing quote. */
export function jsonStringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return text.length;
}

/** One object or array the walk is inside. */
export interface JsonFrame {
  /** Truthy in an object (the keys seen, or true), falsy in an array. */
  keys: unknown;
  /** The frame's own path. */
  path: string;
  /** The last key read (objects). */
  last: string;
  /** The current item (arrays). */
  index: number;
}

/** The dotted path of the value the walk is at in `frame` ("address.city", "tags[2]"); '' outside every frame. */
export function valuePath(frame: JsonFrame | undefined): string {
  if (!frame) return '';
  if (!frame.keys) return `${frame.path}[${frame.index}]`;
  return frame.path === '' ? frame.last : `${frame.path}.${frame.last}`;
}
