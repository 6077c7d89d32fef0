import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../src/duration.js';

describe('durations', () => {
  it('reads what people write: units, combinations, plain seconds; refuses the rest', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('10min')).toBe(600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1h 30m')).toBe(5_400_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('90 s')).toBe(90_000);
    expect(parseDuration('300')).toBe(300_000);
    expect(parseDuration('0')).toBe(0);
    for (const bad of ['', 'x', '5x', 'm', '-5m', '5m-', 'h5']) expect(parseDuration(bad)).toBeUndefined();
  });

  it('says a wait in its two largest units, never more than was asked', () => {
    expect(formatDuration(99_999_000)).toBe('1 d 3 h');
    expect(formatDuration(300_000)).toBe('5 min');
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(3_660_000)).toBe('1 h 1 min');
    expect(formatDuration(86_460_000)).toBe('1 d');
    expect(formatDuration(300)).toBe('0.3 s');
    expect(formatDuration(1e15)).toBe('11,574,074 d 1 h');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('forever');
  });
});
