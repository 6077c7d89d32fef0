/** The adaptive concurrency limit in a real run, against the sandbox's capacity model (real HTTP, real undici). */
import { afterEach, describe, expect, it } from 'vitest';
import { runPipeline, type ImportEvent } from '../../src/core/import/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum, candidates, client, OrderingWatch, sandbox } from './import-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

describe('import: adaptive concurrency against a server of limited capacity', () => {
  it('shrinks the limit on 503s, never passes its cap, and still accounts for every record in order', async () => {
    // 2 served at once, none may wait: the adaptive limit starts at 4, so its first round trip meets 503s
    box = await sandbox({ faults: { capacity: 2, queueLimit: 0, latencyMs: 20 } });
    const api = client(box, { retries: 10, connections: 8 });
    const watch = new OrderingWatch(api);
    const limits: number[] = [];
    const onEvent = (event: ImportEvent) => void (event.type === 'progress' && limits.push(event.progress.concurrency));
    // every member twice: the second row waits for the first, whatever the limit does
    const summary = await runPipeline({
      candidates: candidates(1600, { memberOf: (r) => `m${((r - 1) % 800) + 1}` }),
      transport: watch,
      batchSize: 50,
      maxConcurrency: 6,
      onEvent,
    });
    await api.close();

    expect(bucketSum(summary)).toBe(1600);
    expect(summary.failed).toBe(0);
    expect(summary.importedCount + summary.updatedCount).toBe(1600);
    expect(box.memberCount()).toBe(800);
    expect(box.getMember('m1')?.firstName).toBe('v801');
    expect(watch.violations).toEqual([]);

    const refused = box.stats().byEndpoint['POST /member/v1/members/import']?.['503'] ?? 0;
    expect(refused).toBeGreaterThan(0);
    expect(summary.retries).toBeGreaterThanOrEqual(refused);
    expect(summary.concurrency.final).toBeLessThan(4);
    expect(summary.concurrency.max).toBeLessThanOrEqual(6);
    expect(Math.max(...limits)).toBeLessThanOrEqual(6);
    expect(watch.maxInFlight).toBeLessThanOrEqual(6);
  });

  it('keeps a fixed --concurrency fixed, 503s or not', async () => {
    box = await sandbox({ faults: { capacity: 1, queueLimit: 0 } });
    const api = client(box, { retries: 10 });
    const summary = await runPipeline({ candidates: candidates(300), transport: api, batchSize: 50, concurrency: 3 });
    await api.close();
    expect(summary.importedCount).toBe(300);
    expect(summary.concurrency).toEqual({ final: 3, max: 3 });
  });
});
