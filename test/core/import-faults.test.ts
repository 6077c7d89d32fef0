/** The pipeline's answers to the server's refusals: 400 bisect, 413 split, 401 stop, Retry-After, counts that do not add up, stops. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPipeline, type ImportEvent } from '../../src/core/import/index.js';
import type { ImportTransport } from '../../src/core/import/types.js';
import { MemberApiClient } from '../../src/http/member-api.js';
import { memberRetryPolicy } from '../../src/http/retry-policy.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum, candidates, client, collect, sandbox } from './import-helper.js';
import { MemoryTransport } from './memory-transport.js';
import { reply, startScriptedServer, type ScriptedServer, type Step } from '../http/scripted-server.js';
import { ReaderFailure } from '../../src/errors.js';

let box: SandboxHandle | undefined;
let server: Server | undefined;
let scripted: ScriptedServer | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
  await scripted?.close();
  scripted = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A plain server whose 200 answer to a batch of `items` records is `answer(items)`, and a client of it. */
async function answeringServer(answer: (items: number) => string, timeoutMs: number): Promise<MemberApiClient> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.on('error', () => undefined);
      res.end(answer((JSON.parse(body) as unknown[]).length));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return new MemberApiClient({
    baseUrl: new URL(`http://127.0.0.1:${port}/`),
    token: 't0ken-abc',
    connections: 2,
    timeoutMs,
    retry: memberRetryPolicy(0),
  });
}

describe('import pipeline: refusals and stops', () => {
  it('bisects a 400 until exactly the refused records stand alone, at about k·log2(n) extra requests', async () => {
    const bad = ['m17', 'm230', 'm233', 'm871'];
    box = await sandbox({ faults: { rejectMemberIds: bad } });
    const api = client(box);
    const written: { record: number; stage: string; reason: string }[] = [];
    const summary = await runPipeline({
      candidates: candidates(1000),
      transport: api,
      batchSize: 100,
      concurrency: 4,
      rejects: { write: (e) => void written.push(e) },
    });
    await api.close();
    expect(summary.rejected).toBe(4);
    expect(summary.importedCount).toBe(996);
    expect(bucketSum(summary)).toBe(1000);
    expect(written.map((w) => w.record).sort((a, b) => a - b)).toEqual([17, 230, 233, 871]);
    expect(written[0]!.stage).toBe('rejected');
    expect(written[0]!.reason).toContain('refused by the sandbox');
    for (const id of bad) expect(box.getMember(id)).toBeUndefined();
    // 10 batches; each bad record costs at most 2 requests per halving level (log2 100 ≈ 7)
    const extra = summary.requests - 10;
    expect(extra).toBeGreaterThan(0);
    expect(extra).toBeLessThanOrEqual(bad.length * 2 * Math.ceil(Math.log2(100)));
    expect(summary.topReasons.rejected[0]!.count).toBe(4);
  });

  it('splits on 413 and lowers the batch size for the rest of the run', async () => {
    box = await sandbox({ maxItems: 40 });
    const api = client(box);
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: candidates(1000),
      transport: api,
      batchSize: 100,
      concurrency: 2,
      onEvent: collect(events),
    });
    await api.close();
    expect(summary.importedCount).toBe(1000);
    expect(summary.finalBatchSize).toBeLessThanOrEqual(40);
    const accepted = box.requests().filter((entry) => entry.status === 200);
    expect(Math.max(...accepted.map((entry) => entry.items))).toBeLessThanOrEqual(40);
    expect(events.some((e) => e.type === 'warning' && e.code === 'batch-size-lowered')).toBe(true);
    // the size is lowered for the run: far fewer 413s than batches
    const refused = box.stats().byEndpoint['POST /member/v1/members/import']?.['413'] ?? 0;
    expect(refused).toBeLessThanOrEqual(6);
  });

  it('rejects a record that is too large even alone, and imports the others', async () => {
    box = await sandbox({ maxBodyBytes: 2000 });
    const api = client(box);
    const written: { record: number; reason: string }[] = [];
    const summary = await runPipeline({
      candidates: candidates(30, { extra: (r) => (r === 12 ? { customProperties: { blob: 'x'.repeat(3000) } } : {}) }),
      transport: api,
      batchSize: 10,
      rejects: { write: (e) => void written.push(e) },
    });
    await api.close();
    expect(summary.rejected).toBe(1);
    expect(summary.importedCount).toBe(29);
    expect(written[0]!.record).toBe(12);
    expect(written[0]!.reason).toContain('too large even alone');
  });

  it('stops at once on 401: nothing further is sent, and the records count failed', async () => {
    box = await sandbox({ strictTokens: true });
    const api = client(box, { token: 'not-the-sandbox-token' });
    const summary = await runPipeline({ candidates: candidates(5000), transport: api, batchSize: 50, concurrency: 4 });
    await api.close();
    expect(summary.stopReason).toBe('credentials');
    expect(summary.stopMessage).toContain('401');
    // the status once, the server's words once: not "401: HTTP 401: Unauthorized: Unauthorized: …"
    expect(summary.stopMessage).toMatch(/^HTTP 401: Unauthorized: (?!Unauthorized)/);
    expect(summary.stopMessage).not.toContain('not-the-sandbox-token');
    expect(bucketSum(summary)).toBe(summary.rows);
    expect(summary.failed).toBe(summary.rows);
    // only the first wave went out; the reader stopped too
    expect(box.stats().requests).toBeLessThanOrEqual(4);
    expect(summary.rows).toBeLessThan(5000);
  });

  it('counts failures by their cause, with the real retry count: "gave up after 1 retry", never "N"', async () => {
    box = await sandbox({ faults: { failRate: 1 } });
    const api = client(box, { retries: 1 });
    const summary = await runPipeline({ candidates: candidates(30), transport: api, batchSize: 10, concurrency: 2 });
    await api.close();
    expect(summary.failed).toBe(30);
    expect(summary.topReasons.failed).toEqual([
      { reason: 'not confirmed: HTTP 503 (gave up after 1 retry)', count: 30 },
    ]);
  });

  it('honours Retry-After for every request, not only the one that got the 429', async () => {
    box = await sandbox({ faults: { failNext: [{ status: 429, retryAfter: 1 }] } });
    const api = client(box);
    // Timed on the client's side, where the gate is: no attempt may leave between the moment the 429 was read and
    // the end of its Retry-After. The server's clock would also see requests that were already on their way.
    const attemptsLeftAt: number[] = [];
    let limitedAt: number | undefined;
    const transport: ImportTransport = {
      stats: api.stats,
      postImport: (body, signal, observe) =>
        api.postImport(body, signal, () => {
          attemptsLeftAt.push(performance.now());
          const ended = observe?.();
          return (attempt) => {
            if (attempt.status === 429) limitedAt ??= performance.now();
            ended?.(attempt);
          };
        }),
    };
    const summary = await runPipeline({
      candidates: candidates(400),
      transport,
      batchSize: 20,
      concurrency: 4,
      onEvent: collect([]),
    });
    await api.close();
    expect(summary.importedCount).toBe(400);
    expect(limitedAt).toBeDefined();
    const after = attemptsLeftAt.filter((at) => at > limitedAt!);
    expect(after.length).toBeGreaterThan(1);
    // a timer never fires early; 5 ms covers the clocks' rounding
    for (const at of after) expect(at - limitedAt!).toBeGreaterThanOrEqual(995);
    expect(box.requests().filter((entry) => entry.status === 429)).toHaveLength(1);
    expect(summary.retries).toBeGreaterThan(0);
  });

  it('counts the records of a response that does not add up as failed, with a warning naming the range', async () => {
    // a server that answers 200 but forgets a record
    const api = await answeringServer(
      (items) => JSON.stringify({ importedCount: items - 1, updatedCount: 0, skipped: [] }),
      2000,
    );
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: candidates(10),
      transport: api,
      batchSize: 5,
      onEvent: collect(events),
    });
    await api.close();
    expect(summary.failed).toBe(10);
    expect(summary.importedCount).toBe(0);
    expect(bucketSum(summary)).toBe(10);
    const warning = events.find((e) => e.type === 'warning' && e.code === 'counts-do-not-add-up');
    expect(warning && 'message' in warning && warning.message).toContain('records 1–5');
  });

  it("fails a batch whose 200 body is larger than its batch's result can be, instead of buffering it (trial2)", async () => {
    // a valid import result followed by 2 MiB of JSON whitespace: the old 64 MiB cap read and parsed it whole
    const padding = ' '.repeat(2 * 1024 * 1024);
    const api = await answeringServer(
      (items) => JSON.stringify({ importedCount: items, updatedCount: 0, skipped: [] }) + padding,
      5000,
    );
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: candidates(10),
      transport: api,
      batchSize: 5,
      onEvent: collect(events),
    });
    await api.close();
    expect(summary.failed).toBe(10);
    expect(bucketSum(summary)).toBe(10);
    expect(JSON.stringify(events)).toContain('larger than the 1 MiB an import result may be');
  });

  it('on a graceful stop, lets requests in flight settle, counts the rest failed', async () => {
    box = await sandbox({ faults: { latencyMs: 300 } });
    const api = client(box);
    const stop = new AbortController();
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: candidates(2000),
      transport: api,
      batchSize: 50,
      concurrency: 2,
      stopSignal: stop.signal,
      onEvent: (e) => {
        collect(events)(e);
        if (e.type === 'batch-sent' && e.batch === 2) stop.abort();
      },
    });
    await api.close();
    expect(summary.stopReason).toBe('interrupted');
    expect(bucketSum(summary)).toBe(summary.rows);
    // the two requests in flight were answered and counted
    expect(summary.importedCount).toBe(100);
    expect(box.memberCount()).toBe(100);
    expect(summary.failed).toBe(summary.rows - 100);
    expect(events.filter((e) => e.type === 'batch-sent')).toHaveLength(2);
  });

  it('on a hard stop, abandons requests in flight and still adds up', async () => {
    box = await sandbox({ faults: { latencyMs: 2000 } });
    const api = client(box);
    const abort = new AbortController();
    const summary = await runPipeline({
      candidates: candidates(500),
      transport: api,
      batchSize: 50,
      abortSignal: abort.signal,
      onEvent: (e) => void (e.type === 'batch-sent' && abort.abort()),
    });
    expect(summary.stopReason).toBe('aborted');
    expect(summary.importedCount).toBe(0);
    expect(summary.failed).toBe(summary.rows);
    // it returned before the server got to answer
    expect(box.memberCount()).toBe(0);
    await api.destroy();
  });
});

describe('import pipeline: the reader breaks', () => {
  it('a reader that dies (the CSV worker out of memory) stops the run: what was read is accounted, not thrown', async () => {
    async function* dies() {
      yield* candidates(3000);
      throw new ReaderFailure('the CSV parsing worker ran out of memory while reading', 'out-of-memory');
    }
    const events: ImportEvent[] = [];
    const summary = await runPipeline({
      candidates: dies(),
      transport: new MemoryTransport(),
      batchSize: 100,
      concurrency: 4,
      onEvent: collect(events),
    });
    expect(summary.stopReason).toBe('reader');
    expect(summary.stopMessage).toBe('the CSV parsing worker ran out of memory while reading');
    expect(summary.rows).toBe(3000);
    expect(bucketSum(summary)).toBe(3000);
    expect(summary.importedCount + summary.failed).toBe(3000);
    expect(summary.importedCount).toBeGreaterThan(0);
    expect(events).toContainEqual(expect.objectContaining({ type: 'stopping', reason: 'reader' }));
  });
});

describe('import pipeline: a server that asks for a long pause', () => {
  it('Retry-After: 99999 stops the run: nothing is sent after it, every record read is accounted', async () => {
    const ok: Step = (_req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ importedCount: (JSON.parse(body) as unknown[]).length, updatedCount: 0, skipped: null }),
      );
    };
    let askedAt = 0;
    const day: Step = (req, res, body) => {
      askedAt ||= scripted!.received.length;
      reply(429, '', { 'retry-after': '99999' })(req, res, body);
    };
    scripted = await startScriptedServer([ok, ok, ok], day);
    const api = new MemberApiClient({
      baseUrl: scripted.url,
      token: 't',
      connections: 1,
      timeoutMs: 5_000,
      retry: memberRetryPolicy(5),
    });
    const summary = await runPipeline({ candidates: candidates(500), transport: api, batchSize: 10, concurrency: 1 });
    await api.close();
    expect(summary.stopReason).toBe('server-wait');
    expect(summary.serverWait).toEqual({ retryAfterMs: 99_999_000, maxRetryAfterMs: 300_000, status: 429 });
    expect(askedAt).toBe(4);
    expect(scripted.received.length - askedAt).toBe(0);
    expect(summary.importedCount).toBe(30);
    expect(bucketSum(summary)).toBe(summary.rows);
    expect(summary.topReasons.failed[0]?.reason).toContain('the server asked to wait 1 d 3 h');
    // the command that sends them again is the summary's last line: --resume is wrong advice with --no-journal
    expect(summary.topReasons.failed[0]?.reason).toMatch(/; safe to send again$/);
  });
});

describe('import pipeline: Ctrl-C during a Retry-After pause', () => {
  it('ends at once when nothing is on the wire, instead of waiting out the pause or the grace period', async () => {
    // every request gets a 429 asking for 60 s (under --max-retry-after's 5 min): the run pauses at the gate
    scripted = await startScriptedServer([], reply(429, '', { 'retry-after': '60' }));
    const stop = new AbortController();
    const api = new MemberApiClient({
      baseUrl: scripted.url,
      token: 't',
      connections: 1,
      timeoutMs: 5_000,
      retry: memberRetryPolicy(5),
      onRetry: () => stop.abort(), // the pause has begun
    });
    const summary = await runPipeline({
      candidates: candidates(30),
      transport: api,
      batchSize: 10,
      concurrency: 1,
      graceMs: 600_000,
      stopSignal: stop.signal,
    });
    await api.close();
    expect(summary.stopReason).toBe('interrupted');
    expect(summary.importedCount).toBe(0);
    expect(summary.failed).toBe(summary.rows);
    expect(bucketSum(summary)).toBe(summary.rows);
    // nothing went out after the stop: the one request that got the 429 is all the server saw
    expect(scripted.received).toHaveLength(1);
  });
});
