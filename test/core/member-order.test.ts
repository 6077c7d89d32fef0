/**
 * MemberOrder's table of members on their way (active-members.ts) against a model: the Map-based MemberOrder it
 * replaced, run side by side over random admissions, settlements (answered or failed) and stops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PendingRecord } from '../../src/core/import/batcher.js';
import { ActiveMembers } from '../../src/core/import/active-members.js';
import { idHash } from '../../src/core/duplicates/member-hash.js';
import { MemberOrder, type FailedEarlier } from '../../src/core/import/member-order.js';

const pending = (record: number, memberId: string): PendingRecord => ({
  record,
  line: record + 1,
  memberId,
  slab: Buffer.alloc(0),
  at: 0,
  bytes: 0,
  raw: undefined,
});

/** The model: MemberOrder as it was, a Map of memberId → waiting rows. */
class ModelOrder {
  readonly active = new Map<string, PendingRecord[] | null>();
  readonly failed = new Map<string, FailedEarlier>();
  held = 0;

  admit(record: PendingRecord): string | FailedEarlier {
    const earlier = this.failed.get(record.memberId);
    if (earlier) return earlier;
    const waiting = this.active.get(record.memberId);
    if (waiting === undefined) {
      this.active.set(record.memberId, null);
      return 'go';
    }
    if (waiting === null) this.active.set(record.memberId, [record]);
    else waiting.push(record);
    this.held++;
    return 'held';
  }

  settle(record: PendingRecord, failed: boolean) {
    const waiting = this.active.get(record.memberId);
    if (waiting === undefined) return { failedRows: [] as PendingRecord[] };
    if (failed) {
      const earlier = { record: record.record, line: record.line };
      this.failed.set(record.memberId, earlier);
      this.active.delete(record.memberId);
      this.held -= (waiting ?? []).length;
      return { failedRows: waiting ?? [], earlier };
    }
    const next = waiting?.shift();
    if (next === undefined) {
      this.active.delete(record.memberId);
      return { failedRows: [] as PendingRecord[] };
    }
    if (waiting!.length === 0) this.active.set(record.memberId, null);
    this.held--;
    return { next, failedRows: [] as PendingRecord[] };
  }

  drainHeld(): PendingRecord[] {
    const rows: PendingRecord[] = [];
    for (const [memberId, waiting] of this.active) {
      if (waiting === null) continue;
      rows.push(...waiting);
      this.active.set(memberId, null);
    }
    this.held = 0;
    return rows;
  }
}

type Step = { kind: 'admit'; member: number } | { kind: 'settle'; pick: number; failed: boolean } | { kind: 'drain' };

const stepArb = (members: number): fc.Arbitrary<Step> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('admit' as const), member: fc.nat(members - 1) }) },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), failed: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
  );

describe('MemberOrder against the Map it replaced', () => {
  it('admits, holds, releases and fails rows as the model does, over any interleaving', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 3000 })
          .chain((members) =>
            fc.tuple(fc.constant(members), fc.array(stepArb(members), { maxLength: 1000, size: 'max' })),
          ),
        ([, steps]) => {
          const order = new MemberOrder();
          const model = new ModelOrder();
          // the rows on their way (admitted as go, or released): what the pipeline settles
          const onWay: PendingRecord[] = [];
          let record = 0;
          for (const step of steps) {
            if (step.kind === 'admit') {
              const row = pending(++record, `m${step.member}`);
              const expected = model.admit(row);
              const got = order.admit(row);
              if (typeof expected === 'string') expect(got.kind).toBe(expected);
              else expect(got).toEqual({ kind: 'failed-earlier', earlier: expected });
              if (got.kind === 'go') onWay.push(row);
            } else if (step.kind === 'settle') {
              if (onWay.length === 0) continue;
              const [row] = onWay.splice(step.pick % onWay.length, 1);
              const expected = model.settle(row!, step.failed);
              const got = order.settle(row!, step.failed);
              expect(got.next).toBe(expected.next);
              expect(got.failedRows).toEqual(expected.failedRows);
              expect(got.earlier).toEqual(expected.earlier);
              if (got.next) onWay.push(got.next);
            } else {
              const expected = model.drainHeld();
              const got = order.drainHeld();
              // the same rows, now in file order
              expect(got).toEqual([...expected].sort((a, b) => a.record - b.record));
              // as the pipeline does on a stop: each drained row settles failed
              for (const row of got) expect(order.settle(row, true)).toEqual(model.settle(row, true));
            }
            expect(order.held).toBe(model.held);
            expect(order.activeMembers).toBe(model.active.size);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("drains held rows in file order, whatever order their members' first rows came in", () => {
    const order = new MemberOrder();
    const [b1, a1, b2, a2, b3] = [pending(1, 'B'), pending(2, 'A'), pending(3, 'B'), pending(4, 'A'), pending(5, 'B')];
    for (const row of [b1, a1, b2, a2, b3]) order.admit(row!);
    expect(order.drainHeld().map((r) => r.record)).toEqual([3, 4, 5]);
    expect(order.held).toBe(0);
  });
});

describe('ActiveMembers', () => {
  it('finds exactly the members a Set holds, over growth and removals anywhere in a probe run', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(5000)), { maxLength: 4000, size: 'max' }),
        fc.constantFrom('m', 'member-', ''),
        (steps, prefix) => {
          const table = new ActiveMembers<number>();
          const model = new Set<string>();
          const wrong: string[] = [];
          for (const [add, n] of steps) {
            const id = `${prefix}${n}`;
            if (add) {
              if (table.addOrFind(id) < 0 === model.has(id)) wrong.push(`add ${id}`);
              model.add(id);
            } else {
              const slot = table.find(id);
              if (slot >= 0 !== model.has(id)) wrong.push(`find ${id}`);
              if (slot >= 0) table.removeAt(slot);
              model.delete(id);
            }
            if (table.size !== model.size) wrong.push(`size after ${id}`);
          }
          for (const [, n] of steps)
            if (table.find(`${prefix}${n}`) >= 0 !== model.has(`${prefix}${n}`)) wrong.push(`${n}`);
          expect(wrong).toEqual([]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('removes and finds exactly around the end of the table, where probe runs wrap to its start', () => {
    // memberIds whose home is one of the first 1,024 slots' last three or first three
    const pool: string[] = [];
    for (let i = 0; pool.length < 36; i++) {
      const home = idHash(`w${i}`) & 1023;
      if (home >= 1021 || home <= 2) pool.push(`w${i}`);
    }
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(pool.length - 1)), { maxLength: 200, size: 'max' }),
        (steps) => {
          const table = new ActiveMembers<number>();
          const model = new Set<string>();
          for (const [add, n] of steps) {
            const id = pool[n]!;
            if (add) {
              table.addOrFind(id);
              model.add(id);
            } else {
              const slot = table.find(id);
              if (slot >= 0) table.removeAt(slot);
              model.delete(id);
            }
            expect(pool.filter((other) => table.find(other) >= 0)).toEqual(pool.filter((other) => model.has(other)));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps what waits with its member when others move back into a removed slot', () => {
    const table = new ActiveMembers<string>();
    const ids = Array.from({ length: 3000 }, (_, i) => `M${i}`);
    for (const id of ids) table.addOrFind(id);
    for (const id of ids) table.setWaiting(table.find(id), [id]);
    for (let i = 0; i < ids.length; i += 2) table.removeAt(table.find(ids[i]!));
    for (let i = 1; i < ids.length; i += 2) expect(table.waitingAt(table.find(ids[i]!))).toEqual([ids[i]]);
    expect(table.takeAllWaiting().flat().sort()).toEqual(ids.filter((_, i) => i % 2 === 1).sort());
  });
});
