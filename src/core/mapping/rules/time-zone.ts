/**
 * `"timeZone"`: a local date-time written without an offset, read in an IANA zone through Intl (Node's ICU time
 * zone data, DST included). A zone's offset is asked of Intl once per hour of UTC and cached: an hour whose start
 * and end share an offset holds no transition, so every instant in it has that offset; an hour holding a transition
 * is asked of Intl instant by instant.
 *
 * Local times a transition makes special are read as java.time and Temporal do ("compatible"):
 * - a time that exists twice (clocks go back: 01:30 in New York on the first Sunday of November) is the earlier
 *   instant, in the offset before the change (01:30-04:00);
 * - a time that does not exist (clocks go forward: 02:30 on the second Sunday of March) is moved forward by the
 *   gap, read in the offset before the change (02:30-05:00 = 03:30-04:00).
 */
import { closestName } from '../targets.js';
import { utcMilliseconds } from './date-format.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CACHE_LIMIT = 100_000;

export class TimeZoneError extends Error {}

export interface Zone {
  name: string;
  /** UTC milliseconds of a local wall-clock time given as milliseconds since the epoch read as if it were UTC. */
  toUtc(localMs: number): number;
}

export function openZone(name: string): Zone {
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short', // year 0 and before: 1 BC is year 0
    });
  } catch {
    const suggestion = closestName(name, Intl.supportedValuesOf('timeZone'));
    throw new TimeZoneError(
      `unknown time zone "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}: expected an IANA zone such as Europe/Oslo, America/New_York or UTC`,
    );
  }
  // Intl's own name: "utc" and "Europe/oslo" are accepted and mean the canonical zone
  const exactOffset = (utcMs: number): number => {
    const p: Record<string, number> = {};
    let bc = false;
    for (const { type, value } of formatter.formatToParts(utcMs)) {
      if (type === 'era') bc = value === 'BC';
      else p[type] = Number(value);
    }
    const seconds = Math.floor(utcMs / 1000) * 1000;
    const year = bc ? 1 - p.year! : p.year!;
    const local = { year, month: p.month!, day: p.day!, hour: p.hour!, minute: p.minute!, second: p.second! };
    return utcMilliseconds({ ...local, millisecond: 0 }) - seconds;
  };
  const hours = new Map<number, number>();
  const offsetAt = (utcMs: number): number => {
    const hour = Math.floor(utcMs / HOUR);
    let offset = hours.get(hour);
    if (offset === undefined) {
      const start = exactOffset(hour * HOUR);
      offset = start === exactOffset(hour * HOUR + HOUR - 1000) ? start : Number.NaN;
      if (hours.size >= CACHE_LIMIT) hours.clear();
      hours.set(hour, offset);
    }
    return Number.isNaN(offset) ? exactOffset(utcMs) : offset;
  };
  return {
    name: formatter.resolvedOptions().timeZone,
    toUtc(localMs) {
      const before = offsetAt(localMs - DAY);
      const guess = localMs - before;
      if (offsetAt(guess) === before) return guess; // also the earlier of two, when the time exists twice
      const after = offsetAt(localMs + DAY);
      const later = localMs - after;
      // exists once, after the change; or not at all (a gap): moved forward, read in the offset before it
      return offsetAt(later) === after ? later : guess;
    },
  };
}
