import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, memberUpsertItemSchema, nestedDeeperThan } from '../../src/schemas/index.js';
import { parseJsonRecord } from '../../src/io/json-element.js';
import { toJson } from '../../src/core/mapping/coerce.js';

/** customProperties.x's text, nested so that the whole record has `levels` levels. */
const valueText = (levels: number) => '{"a":'.repeat(levels - 2) + '1' + '}'.repeat(levels - 2);
const recordText = (levels: number) =>
  `{"memberId":"m","isActive":true,"createdAt":"2024-05-01T12:00:00Z","customProperties":{"x":${valueText(levels)}}}`;
const record = (levels: number) => JSON.parse(recordText(levels));

describe(`the nesting bound (${MAX_JSON_DEPTH} levels, the record included)`, () => {
  it('nestedDeeperThan counts the value itself as the first level', () => {
    expect(nestedDeeperThan(1, 0)).toBe(false);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: [] }, 1)).toBe(true);
    expect(nestedDeeperThan(record(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(record(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });

  it('the reader, a json-typed CSV cell and the schema draw the line at the same level', () => {
    for (const [levels, ok] of [
      [MAX_JSON_DEPTH, true],
      [MAX_JSON_DEPTH + 1, false],
      [5000, false],
    ] as const) {
      const item = record(levels);
      const read = parseJsonRecord(1, 1, Buffer.from(recordText(levels)));
      expect(read.error === undefined, `reader at ${levels}`).toBe(ok);
      const cell = toJson(valueText(levels));
      expect(
        cell !== null && typeof cell === 'object' && cell.constructor.name === 'CellProblem',
        `cell at ${levels}`,
      ).toBe(!ok);
      const parsed = memberUpsertItemSchema.safeParse(item);
      expect(parsed.success, `schema at ${levels}`).toBe(ok);
      if (!parsed.success) expect(parsed.error.issues[0]!.message).toMatch(/nested deeper than 64 levels/);
    }
  });
});
