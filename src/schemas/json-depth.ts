/**
 * The nesting bound for member records. A record nested thousands of levels deep is valid JSON, but every
 * recursive walk over it (validation, hashing, JSON.stringify) would exhaust the stack; bounding the depth where
 * records are read and validated makes such a record one invalid record with a reason, not a crashed run.
 */

/**
 * Levels of objects and arrays inside each other, counting the record itself: a member uses 3 at most
 * (record → address / metadata / customProperties → value), so 64 leaves customProperties values 62 levels.
 */
export const MAX_JSON_DEPTH = 64;

/** Levels a customProperties value may have (it starts at level 3 of the record). */
export const CUSTOM_VALUE_LEVELS = MAX_JSON_DEPTH - 2;

export const TOO_DEEP_MESSAGE = `nested deeper than ${MAX_JSON_DEPTH} levels (objects and arrays inside each other)`;

/**
 * True when `value` nests objects or arrays more than `levels` levels (the value itself is the first). Recursive,
 * but never deeper than `levels` frames: it stops at the first branch past the bound.
 */
export function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, levels - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (nestedDeeperThan(record[key], levels - 1)) return true;
  return false;
}

/**
 * False when `text` has at most `levels` opening brackets in all ("{" and "["), so its value cannot nest deeper:
 * the common record skips the walk (a few native indexOf calls instead of visiting every key).
 */
export function mayNestDeeperThan(text: string, levels: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1))
      if (++count > levels) return true;
  }
  return false;
}
