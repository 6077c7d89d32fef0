/**
 * validate --stats: what the valid items would carry, field by field — how often each field is filled or sent as
 * null, how many distinct values it has, its most common values and, for dates and numbers, its range. A mapping
 * that means the wrong thing ("isActive 100% true" over an Active column full of 0s, one createdAt for every member)
 * passes validation; here it shows at a glance before anything is sent.
 *
 * Memory is bounded whatever the file's size: each field counts at most MAX_TRACKED distinct values exactly (a
 * column of unique emails stops adding after that and says "1,000+"). Values are told apart by their whole text
 * (two notes that differ after character 100 are two values); one longer than LONG_VALUE_CHARS is kept as its
 * first characters, its length and a hash of the rest, and any value is shown by its first MAX_VALUE_CHARS.
 */
import type { MemberUpsertItem } from '../../schemas/index.js';

export const MAX_TRACKED = 1000;
const MAX_VALUE_CHARS = 80;
const LONG_VALUE_CHARS = 1024;
const TOP_VALUES = 5;
/** Objects whose keys are profiled one by one: "address.city", "metadata.tier", "customProperties.score". */
const NESTED = new Set(['address', 'metadata', 'customProperties']);
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

export interface ValueCount {
  value: string;
  count: number;
}

export interface FieldProfile {
  path: string;
  /** Items where the field holds a value (not null). */
  filled: number;
  /** Items where the field is sent as null: it clears the server's value. */
  nulls: number;
  /** Distinct values among the filled ones; with `distinctCapped`, at least this many. */
  distinct: number;
  distinctCapped: boolean;
  /** The most common values, most frequent first (among the first MAX_TRACKED distinct values met). */
  top: ValueCount[];
  /** For date-times (by instant) and numbers: the smallest and largest value, as written. */
  range?: { min: string; max: string };
}

export interface ItemsProfile {
  items: number;
  fields: FieldProfile[];
}

class FieldTally {
  filled = 0;
  nulls = 0;
  capped = false;
  readonly counts = new Map<string, number>();
  min?: { key: number; text: string };
  max?: { key: number; text: string };

  add(value: unknown): void {
    if (value === null) {
      this.nulls++;
      return;
    }
    this.filled++;
    const text = valueText(value);
    const seen = this.counts.get(text);
    if (seen !== undefined) this.counts.set(text, seen + 1);
    else if (this.counts.size < MAX_TRACKED) this.counts.set(text, 1);
    else this.capped = true;
    const key = rangeKey(value);
    if (key === undefined) return;
    if (!this.min || key < this.min.key) this.min = { key, text };
    if (!this.max || key > this.max.key) this.max = { key, text };
  }

  profile(path: string): FieldProfile {
    const top = [...this.counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
      .slice(0, TOP_VALUES)
      .map(({ value, count }) => ({ value: shown(value), count }));
    const range = this.min && this.max ? { min: this.min.text, max: this.max.text } : undefined;
    return {
      path,
      filled: this.filled,
      nulls: this.nulls,
      distinct: this.counts.size,
      distinctCapped: this.capped,
      top,
      ...(range && { range }),
    };
  }
}

/** The key a value is counted under: its whole text, or for a very long one a prefix, its length and a hash. */
function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= LONG_VALUE_CHARS) return text;
  return `${text.slice(0, MAX_VALUE_CHARS)}\u0000${text.length}:${fnv1a(text)}`;
}

/** How a counted value is shown: its first MAX_VALUE_CHARS characters. */
function shown(key: string): string {
  const text = key.split('\u0000', 1)[0]!;
  return text.length > MAX_VALUE_CHARS || key.length > text.length ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** 32-bit FNV-1a: enough to tell long values apart in a count capped at MAX_TRACKED per field. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Numbers order by value, ISO date-times by instant (offsets differ); anything else has no range. */
function rangeKey(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !ISO_DATE_TIME.test(value)) return undefined;
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? undefined : instant;
}

/** Tallies valid items as they stream by; `result()` lists the fields in the order they were first met. */
export class ItemsProfiler {
  #items = 0;
  readonly #fields = new Map<string, FieldTally>();

  add(item: MemberUpsertItem): void {
    this.#items++;
    for (const [key, value] of Object.entries(item)) {
      if (NESTED.has(key) && value !== null && typeof value === 'object') {
        for (const [inner, innerValue] of Object.entries(value)) this.#tally(`${key}.${inner}`, innerValue);
      } else this.#tally(key, value);
    }
  }

  #tally(path: string, value: unknown): void {
    if (value === undefined) return;
    let tally = this.#fields.get(path);
    // a file whose metadata keys are all different would grow this without end: past the cap, they count together
    if (!tally && this.#fields.size >= MAX_TRACKED) path = '(other fields)';
    tally = this.#fields.get(path);
    if (!tally) this.#fields.set(path, (tally = new FieldTally()));
    tally.add(value);
  }

  result(): ItemsProfile {
    return { items: this.#items, fields: [...this.#fields].map(([path, tally]) => tally.profile(path)) };
  }
}
