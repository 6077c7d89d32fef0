/** The pipeline against a real sandbox on loopback: conservation under faults, per-member order, hooks, --limit. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/core/candidate.js';
import { runPipeline, type CandidateChunks, type ImportEvent, type SettledBatch } from '../../src/core/import/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum, candidates, client, collect, OrderingWatch, sandbox } from './import-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

describe('import pipeline against the sandbox', () => {
  it('accounts for every record under 10% 503, 429 with Retry-After and resets after apply', async () => {
    box = await sandbox({
      seed: 7,
      faults: { failRate: 0.1, dropRate: 0.05, failNext: [{ status: 429, retryAfter: 1 }, { status: 503 }] },
    });
    const api = client(box, { retries: 10 });
    const written: { stage: string; record: number }[] = [];
    const summary = await runPipeline({
      candidates: candidates(3000, { invalidEvery: 97 }),
      transport: api,
      batchSize: 100,
      concurrency: 6,
      rejects: { write: (entry) => void written.push(entry) },
    });
    await api.close();
    expect(summary.rows).toBe(3000);
    expect(bucketSum(summary)).toBe(3000);
    expect(summary.invalid).toBe(Math.floor(3000 / 97));
    expect(summary.retries).toBeGreaterThan(0);
    // every record not imported or updated went to the rejects sink, once
    expect(written).toHaveLength(summary.invalid + summary.skipped + summary.rejected + summary.failed);
    expect(new Set(written.map((w) => w.record)).size).toBe(written.length);
    // every record counted confirmed is in the sandbox with the values of its row
    const notConfirmed = new Set(written.map((w) => w.record));
    let confirmed = 0;
    for (let r = 1; r <= 3000; r++) {
      if (notConfirmed.has(r)) continue;
      confirmed++;
      expect(box.getMember(`m${r}`)?.firstName).toBe(`v${r}`);
    }
    expect(confirmed).toBe(summary.importedCount + summary.updatedCount);
    expect(box.stats().droppedConnections).toBeGreaterThan(0);
  });

  it('applies rows of one member in file order at concurrency 8, never two in one request or in flight together', async () => {
    box = await sandbox();
    const watch = new OrderingWatch(client(box));
    // 200 members, each appearing ~10 times at scattered places; a few rows invalid
    const memberOf = (r: number) => `m${(r * 7919) % 200}`;
    const summary = await runPipeline({
      candidates: candidates(2000, { memberOf, invalidEvery: 53 }),
      transport: watch,
      batchSize: 50,
      concurrency: 8,
    });
    expect(watch.violations).toEqual([]);
    // and as the server saw it
    expect(box.stats().ordering).toEqual({ duplicateInBatch: 0, overlapping: 0 });
    expect(watch.maxInFlight).toBeGreaterThan(1);
    expect(watch.maxInFlight).toBeLessThanOrEqual(8);
    expect(bucketSum(summary)).toBe(2000);
    expect(summary.failed + summary.rejected).toBe(0);
    // the final state is the last valid row of each member
    const last = new Map<string, number>();
    for (let r = 1; r <= 2000; r++) if (r % 53 !== 0) last.set(memberOf(r), r);
    for (const [memberId, r] of last) expect(box.getMember(memberId)?.firstName).toBe(`v${r}`);
    expect(summary.importedCount).toBe(last.size);
    await watch.destroy();
  });

  it('streams a member repeated thousands of times with a small hold-back bound, without deadlock', async () => {
    box = await sandbox();
    const watch = new OrderingWatch(client(box));
    const memberOf = (r: number) => (r % 3 === 0 ? `m${r}` : 'same');
    const summary = await runPipeline({
      candidates: candidates(600, { memberOf }),
      transport: watch,
      batchSize: 100,
      concurrency: 4,
      maxHeldRows: 20,
    });
    expect(watch.violations).toEqual([]);
    expect(box.stats().ordering).toEqual({ duplicateInBatch: 0, overlapping: 0 });
    expect(bucketSum(summary)).toBe(600);
    expect(summary.failed).toBe(0);
    expect(box.getMember('same')?.firstName).toBe('v599');
    expect(summary.importedCount + summary.updatedCount).toBe(600);
    await watch.destroy();
  });

  it('fails the later rows of a member whose row failed, naming the earlier record', async () => {
    box = await sandbox();
    const api = client(box, { retries: 0 });
    // the first request fails for good (503, no retries); its members' later rows must not be sent
    box.setFaults({ failNext: [{ status: 503 }] });
    const memberOf = (r: number) => `m${r % 10}`;
    const written: { record: number; stage: string; reason: string }[] = [];
    const summary = await runPipeline({
      candidates: candidates(30, { memberOf }),
      transport: api,
      batchSize: 10,
      concurrency: 1,
      rejects: { write: (entry) => void written.push(entry) },
    });
    await api.close();
    expect(bucketSum(summary)).toBe(30);
    expect(summary.failed).toBe(30);
    const later = written.find((w) => w.record === 11)!;
    expect(later.reason).toContain('earlier record 1 (line 2)');
    expect(box.memberCount()).toBe(0);
  });

  it('counts only the first N records with limit, and stops reading', async () => {
    box = await sandbox();
    const api = client(box);
    let read = 0;
    async function* counted() {
      for await (const c of candidates(1000)) {
        read++;
        yield c;
      }
    }
    const summary = await runPipeline({ candidates: counted(), transport: api, limit: 25, batchSize: 10 });
    await api.close();
    expect(summary.rows).toBe(25);
    expect(summary.importedCount).toBe(25);
    expect(box.memberCount()).toBe(25);
    expect(read).toBe(25);
  });

  it('lets hooks skip unchanged, restore earlier outcomes and filter rows; onSettled sees confirmed records first', async () => {
    box = await sandbox();
    box.erase('m5');
    const api = client(box);
    const settledBatches: SettledBatch[] = [];
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: candidates(40),
      transport: api,
      batchSize: 8,
      onEvent: collect(events),
      hooks: {
        select: (c) => c.record !== 40, // another shard's record
        beforeSend: (c) =>
          c.record <= 3 ? 'unchanged' : c.record === 4 ? { kind: 'done', outcome: 'updated' } : 'send',
        onSettled: async (batch) => {
          // nothing of this batch is counted yet when the hook runs
          settledBatches.push(batch);
        },
      },
    });
    await api.close();
    expect(summary.rows).toBe(39);
    expect(summary.unchanged).toBe(3);
    expect(summary.updatedCount).toBe(1);
    expect(summary.skipped).toBe(1);
    expect(summary.skippedExamples).toEqual([{ memberId: 'm5', reason: 'member erased', record: 5, line: 6 }]);
    expect(summary.importedCount).toBe(34);
    expect(bucketSum(summary)).toBe(39);
    const records = settledBatches.flatMap((b) => b.records);
    expect(records).toHaveLength(35);
    expect(records.find((r) => r.record === 5)).toMatchObject({ outcome: 'skipped', reason: 'member erased' });
    expect(records.find((r) => r.record === 6)).toMatchObject({ outcome: 'confirmed', memberId: 'm6' });
    expect(JSON.parse(records.find((r) => r.record === 6)!.json)).toMatchObject({ memberId: 'm6', firstName: 'v6' });
    expect(settledBatches.reduce((sum, b) => sum + b.importedCount, 0)).toBe(34);
    expect(events.filter((e) => e.type === 'batch-confirmed')).toHaveLength(settledBatches.length);
    expect(events.at(-1)?.type).toBe('finished');
  });
  it("takes the readers' chunks: per-member order and accounting as one by one, --limit and shard filter mid-chunk, no chunk read past the limit", async () => {
    box = await sandbox();
    const watch = new OrderingWatch(client(box));
    const all: Candidate[] = [];
    for await (const c of candidates(1000, { memberOf: (r) => `m${(r * 7919) % 150}`, invalidEvery: 41 })) all.push(c);
    let chunksRead = 0;
    async function* batches() {
      // uneven chunks, as 64 KB of CSV would give
      for (let at = 0; at < all.length; ) {
        const size = 37 + (chunksRead % 5) * 29;
        chunksRead++;
        yield all.slice(at, at + size);
        at += size;
      }
    }
    const mapped: number[] = [];
    const toCandidate = (record: Candidate) => (mapped.push(record.record), record);
    const summary = await runPipeline({
      chunks: {
        batches: batches() as unknown as CandidateChunks['batches'],
        toCandidate: toCandidate as unknown as CandidateChunks['toCandidate'],
      },
      transport: watch,
      batchSize: 40,
      concurrency: 4,
      limit: 600,
      hooks: { select: (c) => c.record % 10 !== 3 },
    });
    expect(watch.violations).toEqual([]);
    expect(box.stats().ordering).toEqual({ duplicateInBatch: 0, overlapping: 0 });
    expect(summary.rows).toBe(600);
    expect(bucketSum(summary)).toBe(600);
    expect(summary.failed + summary.rejected).toBe(0);
    // the 600th selected record is 667 (every tenth from 3 on is another shard's); nothing after it was mapped
    expect(mapped.at(-1)).toBe(667);
    expect(mapped).toEqual(Array.from({ length: 667 }, (_, i) => i + 1));
    // chunks are 37 to 153 records: the one holding record 667 was the last one read
    let end = 0;
    let needed = 0;
    while (end < 667) end += 37 + (needed++ % 5) * 29;
    expect(chunksRead).toBe(needed);
    const last = new Map<string, number>();
    for (const c of all.slice(0, 667)) if (c.valid && c.record % 10 !== 3) last.set(c.item.memberId, c.record);
    for (const [memberId, r] of last) expect(box.getMember(memberId)?.firstName).toBe(`v${r}`);
    await watch.destroy();
  });
});
