/**
 * Durations as people write and read them: "90s", "5m", "1h30m", "2d" (or plain seconds, "300", as Retry-After
 * has them) in, "1 d 3 h" out. Used by --max-retry-after and wherever a wait is reported.
 */

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, min: 60_000, s: 1000 };
const PART = /(\d+(?:\.\d+)?)\s*(d|h|min|m|s)/gy;

/** Milliseconds, or undefined when the text is no duration (a unit is required after a number, except alone). */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (value === '') return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  let at = 0;
  for (let match = PART.exec(value); match; match = PART.exec(value)) {
    ms += Number(match[1]) * UNIT_MS[match[2]!]!;
    at = PART.lastIndex;
    while (value[at] === ' ') at++;
    PART.lastIndex = at;
  }
  return at === value.length ? Math.round(ms) : undefined;
}

const SHOWN: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/**
 * "1 d 3 h", "5 min", "45 s", "0.3 s": the two largest units, the rest left out (never rounded up to more than
 * was asked). Days are counted as far as they go ("11,574 d"), so an absurd wait reads as one.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'forever';
  if (ms < 1000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  const parts: string[] = [];
  let rest = Math.floor(ms / 1000) * 1000;
  for (const [unit, size] of SHOWN) {
    if (rest < size && parts.length === 0) continue;
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count.toLocaleString('en-US')} ${unit}`);
    if (parts.length === 2 || (parts.length === 1 && count === 0)) break;
  }
  return parts.join(' ');
}

/** Beyond a year a Retry-After is no pause anyone waits out; its exact length and end date would only read as absurd. */
export const YEAR_MS = 365 * 86_400_000;

/** A wait the server asked for: its length, or "more than a year" ("104,249,991 d" helps no one). */
export function formatWait(ms: number): string {
  return ms > YEAR_MS ? 'more than a year' : formatDuration(ms);
}
