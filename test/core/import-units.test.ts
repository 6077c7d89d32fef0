import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Batcher, batchBody, type PendingRecord } from '../../src/core/import/batcher.js';
import { ItemSlabs, itemJson, ownBytes } from '../../src/core/import/item-bytes.js';
import { MemberOrder } from '../../src/core/import/member-order.js';
import { accountResponse } from '../../src/core/import/response.js';

const slabs = new ItemSlabs();

function pending(record: number, memberId = `m${record}`, json = `{"memberId":"${memberId}"}`): PendingRecord {
  const r: PendingRecord = { record, line: record + 1, memberId, slab: Buffer.alloc(0), at: 0, bytes: 0, raw: null };
  slabs.put(json, r);
  return r;
}

describe('Batcher', () => {
  it('owns the batch-size policy: a 413 halves the size for the rest of the run, never raises it', () => {
    const batcher = new Batcher(8, 1 << 20);
    expect(batcher.tooLarge(8)).toBe(4);
    expect(batcher.tooLarge(8)).toBeUndefined(); // an answer for an older, larger batch changes nothing
    expect(batcher.maxItems).toBe(4);
    const open = [1, 2, 3].flatMap((r) => batcher.add(pending(r)));
    expect(open).toEqual([]);
    expect(batcher.tooLarge(4)).toBe(2);
    // what waits (and the open batch, now over the size) is cut to the new size, in order
    const waiting = [{ id: 9, records: [4, 5, 6, 7].map((r) => pending(r)), bytes: 0, attempt: 'first' as const }];
    expect(batcher.resplit(waiting).map((b) => b.records.map((r) => r.record))).toEqual([[4, 5], [6, 7], [1, 2], [3]]);
    expect(batcher.size).toBe(0);
    // a refused batch: bisect in halves; a 413 split at most at the size
    const refused = {
      id: 10,
      records: [10, 11, 12, 13, 14, 15].map((r) => pending(r)),
      bytes: 0,
      attempt: 'first' as const,
    };
    expect(batcher.halves(refused, 'bisect').map((b) => b.records.length)).toEqual([3, 3]);
    expect(batcher.halves(refused, 'split').map((b) => b.records.length)).toEqual([2, 2, 2]);
  });

  it('closes at the item count', () => {
    const batcher = new Batcher(3, 1 << 20);
    const closed = [1, 2, 3, 4, 5, 6, 7].flatMap((r) => batcher.add(pending(r)));
    expect(closed.map((b) => b.records.map((r) => r.record))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(batcher.close()!.records.map((r) => r.record)).toEqual([7]);
  });

  it('closes before the body would pass the byte limit, and its byte count is the body length', () => {
    const json = `{"memberId":"${'x'.repeat(40)}"}`; // 55 bytes
    const batcher = new Batcher(100, 120);
    const closed = [1, 2, 3].flatMap((r) => batcher.add(pending(r, `m${r}`, json)));
    expect(closed).toHaveLength(1);
    expect(closed[0]!.records).toHaveLength(2);
    expect(closed[0]!.bytes).toBe(Buffer.byteLength(batchBody(closed[0]!.records)));
    expect(closed[0]!.bytes).toBeLessThanOrEqual(120);
  });

  it('encodes the body as the UTF-8 of the items joined, non-ASCII and astral characters included', () => {
    const records = [pending(1, 'a', '{"city":"København"}'), pending(2, 'b', '{"n":"😀 \\u0000"}'), pending(3)];
    const body = batchBody(records);
    expect(body.toString('utf8')).toBe('[{"city":"København"},{"n":"😀 \\u0000"},{"memberId":"m3"}]');
    expect(records.map(itemJson)).toEqual(['{"city":"København"}', '{"n":"😀 \\u0000"}', '{"memberId":"m3"}']);
    expect(body.length).toBe(Buffer.byteLength(body.toString('utf8')));
    expect(batchBody([]).toString()).toBe('[]');
    // a record pointing past its bytes never sends uninitialised or cut-off bytes
    expect(() => batchBody([{ ...pending(1), slab: Buffer.from('{}'), at: 0 }])).toThrow(/expected/);
  });

  it('keeps items in shared slabs, a text larger than a slab in one of its own, a held row in a buffer of its own size', () => {
    const own = new ItemSlabs();
    const big = `{"memberId":"${'é'.repeat(40_000)}"}`;
    const [a, b, c] = [pending(1), pending(2, 'b', big), pending(3)].map((r, i) => {
      own.put(i === 1 ? big : itemJson(r), r);
      return r;
    });
    expect(a!.slab).not.toBe(b!.slab);
    expect(b!.bytes).toBe(Buffer.byteLength(big));
    expect(itemJson(b!)).toBe(big);
    expect(c!.slab).toBe(b!.slab);
    const held = pending(4);
    ownBytes('{"memberId":"é"}', held);
    expect(held.slab.length).toBe(held.bytes);
    expect(itemJson(held)).toBe('{"memberId":"é"}');
  });

  it("a body is the items' bytes joined, whichever records of which slabs it holds, in any order", () => {
    // records put one after another are copied as one run (item-bytes.ts writes a comma after each item): the body
    // must be the same bytes as item by item, for runs cut anywhere, out of order, across slabs and own buffers
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 30 }), fc.boolean()), { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 80 }),
        fc.integer({ min: 0, max: 3000 }),
        (items, picks, filler) => {
          const own = new ItemSlabs();
          // text that fills part of a slab first, so runs also cross into a new slab
          own.put(JSON.stringify('x'.repeat(filler * 20)), pending(0));
          const records = items.map(([text, held], i) => {
            const r = pending(i + 1);
            if (held) ownBytes(JSON.stringify(text), r);
            else own.put(JSON.stringify(text), r);
            return r;
          });
          const chosen = picks.length > 0 ? picks.map((p) => records[p % records.length]!) : records;
          const expected = `[${chosen.map((r) => JSON.stringify(items[r.record - 1]![0])).join(',')}]`;
          expect(batchBody(chosen).toString('utf8')).toBe(expected);
          expect(batchBody(records).toString('utf8')).toBe(`[${items.map(([t]) => JSON.stringify(t)).join(',')}]`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sends an item larger than the byte limit alone', () => {
    const batcher = new Batcher(100, 10);
    const closed = [batcher.add(pending(1)), batcher.add(pending(2))].flat();
    expect(closed.map((b) => b.records.length)).toEqual([1, 1]);
  });

  it('counts multi-byte characters as bytes', () => {
    const json = '{"memberId":"é"}';
    expect(pending(1, 'é', json).bytes).toBe(json.length + 1);
  });
});

describe('MemberOrder', () => {
  it('holds later rows of a member until the earlier settles, then releases them one by one in order', () => {
    const order = new MemberOrder();
    const [a1, b, a2, a3] = [pending(1, 'A'), pending(2, 'B'), pending(3, 'A'), pending(4, 'A')];
    expect(order.admit(a1!).kind).toBe('go');
    expect(order.admit(b!).kind).toBe('go');
    expect(order.admit(a2!).kind).toBe('held');
    expect(order.admit(a3!).kind).toBe('held');
    expect(order.held).toBe(2);
    expect(order.settle(a1!, false).next).toBe(a2);
    expect(order.settle(a2!, false).next).toBe(a3);
    expect(order.settle(a3!, false).next).toBeUndefined();
    expect(order.activeMembers).toBe(1);
    expect(order.held).toBe(0);
  });

  it('fails the held rows of a failed member, and its rows still to come', () => {
    const order = new MemberOrder();
    const [a1, a2] = [pending(1, 'A'), pending(2, 'A')];
    order.admit(a1!);
    order.admit(a2!);
    const settled = order.settle(a1!, true);
    expect(settled.failedRows).toEqual([a2]);
    expect(settled.earlier).toEqual({ record: 1, line: 2 });
    expect(order.admit(pending(9, 'A'))).toEqual({ kind: 'failed-earlier', earlier: { record: 1, line: 2 } });
    expect(order.held).toBe(0);
  });
});

describe('accountResponse', () => {
  const batch = [pending(1, 'a'), pending(2, 'b'), pending(3, 'c')];

  it('matches skipped entries to records by memberId', () => {
    const account = accountResponse(batch, {
      importedCount: 1,
      updatedCount: 1,
      skipped: [{ memberId: 'b', reason: 'member erased' }],
    });
    expect(account.addsUp).toBe(true);
    expect(account.skipped.map((s) => s.record.record)).toEqual([2]);
    expect(account.rest.map((r) => r.record)).toEqual([1, 3]);
  });

  it('takes skipped: null as none', () => {
    expect(accountResponse(batch, { importedCount: 3, updatedCount: 0, skipped: null }).addsUp).toBe(true);
  });

  it('says when the counts do not add up', () => {
    const account = accountResponse(batch, { importedCount: 1, updatedCount: 0, skipped: [] });
    expect(account.addsUp).toBe(false);
    expect(account.problem).toContain('= 1, but the batch held 3 records');
  });

  it('says when a skipped entry names no record of the batch', () => {
    const account = accountResponse(batch, {
      importedCount: 2,
      updatedCount: 0,
      skipped: [{ memberId: 'zz', reason: null }],
    });
    expect(account.addsUp).toBe(false);
    expect(account.problem).toContain('"zz"');
    expect(account.rest).toHaveLength(3);
  });
});
