/**
 * The Ledger, the only writer of an import's buckets: unit tests of its books, and fast-check model tests of the
 * whole pipeline against an in-memory transport (no sockets, no timers: hundreds of runs in a second or two).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/core/candidate.js';
import { runPipeline, type ImportSummary } from '../../src/core/import/index.js';
import type { PendingRecord } from '../../src/core/import/batcher.js';
import { Ledger } from '../../src/core/import/ledger.js';
import { MemberOrder } from '../../src/core/import/member-order.js';
import type { RejectsSink } from '../../src/core/import/types.js';
import { bucketSum, item } from './import-helper.js';
import { MemoryTransport } from './memory-transport.js';

type RejectEntry = Parameters<RejectsSink['write']>[0];

const pending = (record: number, memberId: string): PendingRecord => ({
  record,
  line: record + 1,
  memberId,
  slab: Buffer.alloc(0),
  at: 0,
  bytes: 0,
  raw: { memberId },
});

describe('Ledger', () => {
  function ledger() {
    const written: RejectEntry[] = [];
    const released: PendingRecord[] = [];
    const order = new MemberOrder();
    const books = new Ledger(
      order,
      {},
      { release: (r) => void released.push(r), onSynced: () => undefined, onHookFailed: () => undefined },
      { write: (e) => void written.push(e) },
    );
    return { books, order, written, released };
  }

  it('counts what the reader saw: rows, unchanged, invalid (with the reason in the rejects file), settled by an earlier run', async () => {
    const { books, written } = ledger();
    for (let i = 0; i < 5; i++) books.read();
    books.unchanged();
    await books.invalid(
      { record: 2, line: 3, raw: {} },
      [{ path: 'email', message: 'too long', rule: 'too long' }],
      'email: too long',
    );
    await books.settledEarlier({ record: 3, line: 4, raw: {} }, 'imported');
    await books.settledEarlier({ record: 4, line: 5, memberId: 'm4', raw: {} }, 'skipped');
    await books.settledEarlier({ record: 5, line: 6, raw: {} }, 'updated');
    expect(books.books()).toMatchObject({
      rows: 5,
      unchanged: 1,
      invalid: 1,
      importedCount: 1,
      updatedCount: 1,
      skipped: 1,
      skippedExamples: [{ memberId: 'm4', record: 4, reason: 'skipped in an earlier run' }],
    });
    expect(books.settled).toBe(5);
    expect(written.map((e) => [e.record, e.stage])).toEqual([
      [2, 'invalid'],
      [4, 'skipped'],
    ]);
  });

  it('keeps a count of skipped records and only the first few as examples, however many the server skips', async () => {
    const { books, order, written } = ledger();
    const records = Array.from({ length: 25 }, (_, i) => pending(i + 1, `m${i + 1}`));
    for (const r of records) order.admit(r);
    const skipped = records.map((record) => ({ record, reason: 'member erased' }));
    await books.settleAnswered({ confirmed: [], importedCount: 0, updatedCount: 0, skipped, rejected: [] });
    const summary = books.books();
    expect(summary.skipped).toBe(25);
    expect(summary.skippedExamples.map((s) => s.memberId)).toEqual(records.slice(0, 10).map((r) => r.memberId));
    expect(written.filter((w) => w.stage === 'skipped')).toHaveLength(25);
    expect(books.settled).toBe(25);
  });

  it("a failed record fails its member's held rows too; an answered one releases the next", async () => {
    const { books, order, written, released } = ledger();
    const [a1, a2, a3, b1, b2] = [pending(1, 'a'), pending(2, 'a'), pending(3, 'a'), pending(4, 'b'), pending(5, 'b')];
    for (const r of [a1, a2, a3, b1, b2]) order.admit(r);
    await books.settleFailed([a1], 'not confirmed: HTTP 503', 'not confirmed: HTTP 503');
    await books.settleAnswered({ confirmed: [b1], importedCount: 1, updatedCount: 0, skipped: [], rejected: [] });
    expect(books.books()).toMatchObject({ failed: 3, importedCount: 1 });
    expect(written.map((e) => [e.record, e.reason.slice(0, 30)])).toEqual([
      [1, 'not confirmed: HTTP 503'],
      [2, 'not sent: earlier record 1 (li'],
      [3, 'not sent: earlier record 1 (li'],
    ]);
    expect(released).toEqual([b2]);
    expect(books.books().topReasons.failed).toEqual([
      { reason: 'not sent: an earlier row of the same member failed', count: 2 },
      { reason: 'not confirmed: HTTP 503', count: 1 },
    ]);
  });
});

/** One input row: its member (from a small pool, so members repeat) and whether it is valid. */
const rowArb = fc.record({
  member: fc.integer({ min: 0, max: 11 }),
  valid: fc.integer({ min: 0, max: 9 }).map((n) => n > 1),
});

async function* rowsAsCandidates(rows: { member: number; valid: boolean }[]): AsyncGenerator<Candidate> {
  for (let i = 0; i < rows.length; i++) {
    const record = i + 1;
    const memberId = `m${rows[i]!.member}`;
    if (!rows[i]!.valid)
      yield {
        record,
        line: record + 1,
        memberId,
        raw: { memberId },
        valid: false,
        issues: [{ path: 'email', message: 'too long', rule: 'too long' }],
      };
    else
      yield {
        record,
        line: record + 1,
        memberId,
        raw: { memberId, record },
        valid: true,
        item: item(memberId, { firstName: `row ${record}` }),
      };
  }
}

async function run(
  rows: { member: number; valid: boolean }[],
  transport: MemoryTransport,
  sending: { batchSize: number; concurrency: number },
) {
  const written: RejectEntry[] = [];
  const summary: ImportSummary = await runPipeline({
    candidates: rowsAsCandidates(rows),
    transport,
    ...sending,
    rejects: { write: (e) => void written.push(e) },
  });
  return { summary, written };
}

const sendingArb = fc.record({
  batchSize: fc.integer({ min: 1, max: 6 }),
  concurrency: fc.integer({ min: 1, max: 4 }),
});

describe('the pipeline against an in-memory server (model tests)', () => {
  it("every record ends in the bucket the model says, and the server holds each member's last row", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 40 }),
        fc.subarray([0, 1, 2, 3, 4, 5]),
        fc.subarray([6, 7, 8]),
        sendingArb,
        async (rows, refusedMembers, skippedMembers, sending) => {
          const refuse = new Set(refusedMembers.map((m) => `m${m}`));
          const skip = new Set(skippedMembers.map((m) => `m${m}`));
          const transport = new MemoryTransport({ refuse, skip });
          const { summary, written } = await run(rows, transport, sending);
          // the model: each row on its own, in file order
          const seen = new Set<string>();
          const model = { invalid: 0, importedCount: 0, updatedCount: 0, skipped: 0, rejected: 0 };
          const last = new Map<string, number>();
          rows.forEach((row, i) => {
            const id = `m${row.member}`;
            if (!row.valid) return void model.invalid++;
            if (refuse.has(id)) return void model.rejected++;
            if (skip.has(id)) return void model.skipped++;
            if (seen.has(id)) model.updatedCount++;
            else model.importedCount++;
            seen.add(id);
            last.set(id, i + 1);
          });
          expect(summary).toMatchObject({
            rows: rows.length,
            failed: 0,
            unchanged: 0,
            ...model,
          });
          expect(bucketSum(summary)).toBe(rows.length);
          expect(new Map([...transport.store].map(([id, stored]) => [id, stored.firstName]))).toEqual(
            new Map([...last].map(([id, record]) => [id, `row ${record}`])),
          );
          // the rejects file: every record not imported or updated, once, in its stage
          expect(written.length).toBe(model.invalid + model.skipped + model.rejected);
          expect(new Set(written.map((e) => e.record)).size).toBe(written.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('with requests failing at random, the buckets still add up and a member never gets a row past one that failed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
        sendingArb,
        async (rows, fails, sending) => {
          const transport = new MemoryTransport({ failRequest: (n) => fails[(n - 1) % fails.length]! });
          const { summary, written } = await run(rows, transport, sending);
          expect(bucketSum(summary)).toBe(summary.rows);
          expect(summary.rows).toBe(rows.length);
          expect(written.length).toBe(summary.rows - summary.importedCount - summary.updatedCount);
          expect(new Set(written.map((e) => e.record)).size).toBe(written.length);
          // per member: once a row failed, no later row of that member reached the server
          const failedAt = new Map<string, number>();
          for (const e of written)
            if (e.stage === 'failed' && !failedAt.has(e.memberId!)) failedAt.set(e.memberId!, e.record);
          for (const [id, stored] of transport.store) {
            const storedRecord = Number(stored.firstName!.slice(4));
            if (failedAt.has(id)) expect(storedRecord, id).toBeLessThan(failedAt.get(id)!);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
