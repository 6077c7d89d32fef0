/**
 * The journal's fsync sits in the pipeline's onSettled hook, which is awaited one response at a time. If the hook
 * is slower than the server, sending must slow down instead of answered batches piling up in memory.
 */
import { describe, expect, it } from 'vitest';
import { runImport, type ImportResponse, type ImportTransport } from '../../src/core/import/index.js';
import type { Candidate } from '../../src/core/candidate.js';

async function* rows(n: number): AsyncGenerator<Candidate> {
  for (let r = 1; r <= n; r++) yield { record: r, line: r + 1, memberId: `m${r}`, raw: {}, valid: true, item: { memberId: `m${r}`, isActive: true, createdAt: '2024-01-02T03:04:05Z' } };
}

describe('pipeline backpressure from a slow onSettled hook', () => {
  it('keeps answered-but-unsettled batches bounded by 2 × concurrency, and accounts for everything', async () => {
    let answered = 0;
    let settled = 0;
    let worst = 0;
    const transport: ImportTransport = {
      stats: { requests: 0, retries: 0 },
      async postImport(body): Promise<ImportResponse> {
        transport.stats.requests++;
        const size = (JSON.parse(new TextDecoder().decode(body)) as unknown[]).length;
        await new Promise((resolve) => setImmediate(resolve)); // a server that answers at once
        answered++;
        worst = Math.max(worst, answered - settled);
        return { kind: 'ok', status: 200, result: { importedCount: size, updatedCount: 0, skipped: [] } };
      },
    };
    const summary = await runImport({
      candidates: rows(2000),
      transport,
      batchSize: 10,
      concurrency: 4,
      hooks: {
        onSettled: async () => {
          await new Promise((resolve) => setTimeout(resolve, 3)); // a disk slower than the server
          settled++;
        },
      },
    });
    expect(summary.importedCount).toBe(2000);
    expect(settled).toBe(200);
    expect(worst).toBeLessThanOrEqual(2 * 4);
  });
});
