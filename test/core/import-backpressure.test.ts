/**
 * The journal's fsync sits in the pipeline's onSettled hook. If the hook is slower than the server, sending must
 * slow down instead of answered batches piling up in memory. Calls overlap (so a journal can sync several
 * responses' entries at once) and are not awaited before a member's next row goes, but they are made in
 * response order, before that next row is sent: a journal appending in call order stays a valid prefix.
 */
import { describe, expect, it } from 'vitest';
import { runPipeline, type ImportResponse, type ImportTransport } from '../../src/core/import/index.js';
import type { Candidate } from '../../src/core/candidate.js';

async function* rows(n: number): AsyncGenerator<Candidate> {
  for (let r = 1; r <= n; r++)
    yield {
      record: r,
      line: r + 1,
      memberId: `m${r}`,
      raw: {},
      valid: true,
      item: { memberId: `m${r}`, isActive: true, createdAt: '2024-01-02T03:04:05Z' },
    };
}

/**
 * A server that answers every request at once, each item imported; `onAnswer` runs as each answer goes back. Each
 * attempt is reported as taking 1 ms: an adaptive concurrency limit grows against it.
 */
function answeringAtOnce(onAnswer?: () => void): ImportTransport {
  const transport: ImportTransport = {
    stats: { requests: 0, retries: 0 },
    async postImport(body, _signal, onAttempt): Promise<ImportResponse> {
      transport.stats.requests++;
      const size = (JSON.parse(new TextDecoder().decode(body)) as unknown[]).length;
      const ended = onAttempt?.();
      await new Promise((resolve) => setImmediate(resolve));
      ended?.({ ms: 1, status: 200 });
      onAnswer?.();
      return { kind: 'ok', status: 200, result: { importedCount: size, updatedCount: 0, skipped: [] } };
    },
  };
  return transport;
}

describe('pipeline backpressure from a slow onSettled hook', () => {
  /** Imports `count` rows in batches of 10 behind a hook slower than the server; `worst`: most answered, unsettled. */
  async function behindASlowHook(count: number, concurrency: { concurrency?: number; maxConcurrency?: number }) {
    let answered = 0;
    let settled = 0;
    let worst = 0;
    const transport = answeringAtOnce(() => {
      answered++;
      worst = Math.max(worst, answered - settled);
    });
    const hooks = {
      onSettled: async () => {
        await new Promise((resolve) => setTimeout(resolve, 3)); // a disk slower than the server
        settled++;
      },
    };
    const summary = await runPipeline({ candidates: rows(count), transport, batchSize: 10, ...concurrency, hooks });
    return { summary, settled, worst };
  }

  it('keeps answered-but-unsettled batches bounded by 2 × concurrency, and accounts for everything', async () => {
    const { summary, settled, worst } = await behindASlowHook(2000, { concurrency: 4 });
    expect(summary.importedCount).toBe(2000);
    expect(settled).toBe(200);
    expect(worst).toBeLessThanOrEqual(2 * 4);
  });

  it('with the adaptive limit, the bound follows the live limit', async () => {
    const { summary, worst } = await behindASlowHook(4000, { maxConcurrency: 16 });
    expect(summary.importedCount).toBe(4000);
    expect(summary.concurrency.max).toBeGreaterThan(4);
    expect(worst).toBeGreaterThan(2 * 4); // more than the starting limit's bound allowed...
    expect(worst).toBeLessThanOrEqual(2 * summary.concurrency.max); // ...never more than the highest limit's
  });

  it("calls the hook for responses that arrive during a slow one, and for a member's row before its next row is sent, without waiting for it to resolve", async () => {
    // members m1..m50, each on 4 rows (in four passes over the members), 10 records per batch
    async function* repeated(): AsyncGenerator<Candidate> {
      for (let r = 1; r <= 200; r++) {
        const memberId = `m${((r - 1) % 50) + 1}`;
        yield {
          record: r,
          line: r + 1,
          memberId,
          raw: {},
          valid: true,
          item: { memberId, isActive: true, createdAt: '2024-01-02T03:04:05Z' },
        };
      }
    }
    const sentAt = new Map<number, number>(); // record → when its request was sent
    const calledAt = new Map<number, number>(); // record → when the hook was called with it
    const durableAt = new Map<number, number>(); // record → when that call resolved
    let tick = 0;
    let running = 0;
    let overlap = 0;
    const transport = answeringAtOnce();
    const summary = await runPipeline({
      candidates: repeated(),
      transport,
      batchSize: 10,
      concurrency: 4,
      onEvent: (event) => {
        if (event.type === 'batch-sent')
          for (let r = event.firstRecord; r <= event.lastRecord; r++) sentAt.set(r, ++tick);
      },
      hooks: {
        onSettled: async (batch) => {
          for (const r of batch.records) calledAt.set(r.record, ++tick);
          overlap = Math.max(overlap, ++running);
          await new Promise((resolve) => setTimeout(resolve, 3)); // a slow fsync
          running--;
          for (const r of batch.records) durableAt.set(r.record, ++tick);
        },
      },
    });
    expect(summary.importedCount).toBe(200);
    expect(overlap).toBeGreaterThan(1);
    // the row of a member 50 records later is its next row: sent only after the earlier one was passed to the hook
    for (let r = 1; r <= 150; r++) expect(sentAt.get(r + 50)!).toBeGreaterThan(calledAt.get(r)!);
    // ...but not held until that call resolved (the fsync): some next rows went while it was still under way
    expect([...Array(150).keys()].some((i) => sentAt.get(i + 51)! < durableAt.get(i + 1)!)).toBe(true);
    // and the run returned only after every call resolved
    expect(durableAt.size).toBe(200);
  });

  it('a hook that fails (a journal that cannot write) stops the run with its error, and nothing more is sent', async () => {
    let calls = 0;
    const transport = answeringAtOnce();
    const run = runPipeline({
      candidates: rows(2000),
      transport,
      batchSize: 10,
      concurrency: 4,
      hooks: {
        onSettled: async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (++calls === 5) throw new Error('ENOSPC: no space left on device');
        },
      },
    });
    await expect(run).rejects.toThrow('ENOSPC');
    // the run stopped soon after: at most what was in flight or unsynced then (2 × concurrency) went on
    expect(transport.stats.requests).toBeLessThan(5 + 2 * 4 + 1);
  });
});

describe('pipeline: the window byte budget', () => {
  /** Imports `count` rows in batches of 10 against a server answering at once; `worst`: most body bytes out at once. */
  async function importWatchingBytes(count: number, windowBytes?: number) {
    let out = 0;
    let worst = 0;
    let worstRequests = 0;
    let requests = 0;
    const inner = answeringAtOnce();
    const transport: ImportTransport = {
      stats: inner.stats,
      async postImport(body, signal, onAttempt) {
        out += body.length;
        requests++;
        worst = Math.max(worst, out);
        worstRequests = Math.max(worstRequests, requests);
        try {
          return await inner.postImport(body, signal, onAttempt);
        } finally {
          out -= body.length;
          requests--;
        }
      },
    };
    const summary = await runPipeline({
      candidates: rows(count),
      transport,
      batchSize: 10,
      concurrency: 16,
      windowBytes,
    });
    return { summary, worst, worstRequests };
  }

  it('keeps the bytes of requests out within the budget and one batch, whatever the concurrency allows', async () => {
    const batchBytes = 10 * 75; // ten items of ~70 bytes
    const free = await importWatchingBytes(2000);
    expect(free.worst).toBeGreaterThan(6 * batchBytes); // without a budget, the concurrency limit is the bound
    const { summary, worst } = await importWatchingBytes(2000, 3 * batchBytes);
    expect(summary.importedCount).toBe(2000);
    expect(worst).toBeLessThanOrEqual(4 * batchBytes);
  });

  it('a batch larger than the budget on its own is still sent: every batch goes, one at a time, and all are accounted', async () => {
    const { summary, worstRequests } = await importWatchingBytes(500, 100);
    expect(summary.importedCount).toBe(500);
    expect(summary.requests).toBe(50);
    expect(worstRequests).toBe(1);
  });
});
