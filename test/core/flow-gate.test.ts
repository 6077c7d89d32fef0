/**
 * The flow gate alone: every bound between reading and the server, with the counts it reads set by hand. The
 * pipeline's behaviour behind a slow hook, a slow server and a stop is in import-backpressure.test.ts and
 * import-pipeline.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ConcurrencyLimit } from '../../src/core/import/concurrency-limit.js';
import { FlowGate } from '../../src/core/import/flow-gate.js';

/** A gate over counts the test sets: `parts` is what the queue, the held rows, the ledger and the stop hold. */
function gate(startLimit: number, maxHeld = 10, windowBytes?: number) {
  const limit = { current: startLimit, peak: startLimit, phase: 'steady', attempt: () => () => undefined };
  const parts = { queued: 0, queuedBytes: 0, held: 0, unsynced: 0, stopping: false, pumps: 0, closes: 0 };
  const flow = new FlowGate(
    limit as ConcurrencyLimit,
    maxHeld,
    {
      queued: () => parts.queued,
      queuedBytes: () => parts.queuedBytes,
      held: () => parts.held,
      unsynced: () => parts.unsynced,
      stopping: () => parts.stopping,
      pump: () => void parts.pumps++,
      closeOpenBatch: () => {
        parts.closes++;
        parts.queued++;
      },
    },
    windowBytes,
  );
  return { flow, parts, limit: limit as { current: number } };
}

describe('FlowGate', () => {
  it('the backlog follows the live limit up, but never below the limit the run started with', () => {
    const { flow, limit } = gate(4);
    expect(flow.backlog).toBe(4);
    limit.current = 12;
    expect(flow.backlog).toBe(12);
    limit.current = 1; // an overloaded server cut it: the reader and the journal still get the starting room
    expect(flow.backlog).toBe(4);
  });

  it('the reader is full at `backlog` closed batches or `maxHeld` held rows, never once the run is stopping', () => {
    const { flow, parts } = gate(4, 10);
    parts.queued = 3;
    parts.held = 9;
    expect(flow.full).toBe(false);
    parts.queued = 4;
    expect(flow.full).toBe(true);
    parts.queued = 0;
    parts.held = 10;
    expect(flow.full).toBe(true);
    parts.stopping = true;
    expect(flow.full).toBe(false);
  });

  it('a request may leave while fewer than the limit are in flight and fewer than 2 × backlog responses are not done with', () => {
    const { flow, parts, limit } = gate(4);
    for (let i = 0; i < 4; i++) {
      expect(flow.maySend).toBe(true);
      flow.requestSent(100);
    }
    expect(flow.maySend).toBe(false); // 4 in flight
    for (let i = 0; i < 4; i++) flow.requestAnswered();
    expect(flow.inFlight).toBe(0);
    expect(flow.outstanding).toBe(4); // answered, being accounted
    parts.unsynced = 3;
    expect(flow.maySend).toBe(true); // 4 + 3 < 8
    parts.unsynced = 4;
    expect(flow.maySend).toBe(false); // answered batches behind a slow journal: sending pauses
    limit.current = 8; // the bound follows the live limit
    expect(flow.maySend).toBe(true);
    parts.stopping = true;
    expect(flow.maySend).toBe(false);
  });

  it('a handled response and a resolved hook call pump the sender and wake whoever waits', async () => {
    const { flow, parts } = gate(4);
    flow.requestSent(100);
    flow.requestAnswered();
    const woken = flow.nextChange();
    flow.responseHandled(100);
    await woken;
    expect(flow.outstanding).toBe(0);
    expect(parts.pumps).toBe(1);
    const again = flow.nextChange();
    flow.hookCallResolved();
    await again;
    expect(parts.pumps).toBe(2);
  });

  it('waiting for room never waits on an unsent batch: with the held rows full, the open batch is closed and sent', async () => {
    const { flow, parts } = gate(4, 2);
    parts.held = 2; // the rows they wait behind may be in the open batch
    const waiting = flow.waitForRoom();
    expect(parts.closes).toBe(1);
    expect(parts.pumps).toBe(1);
    parts.held = 0; // the batch went, its rows settled, the held rows were released
    flow.changed();
    await waiting;
  });

  it('waiting for room ends when the run begins to stop', async () => {
    const { flow, parts } = gate(4);
    parts.queued = 4;
    const waiting = flow.waitForRoom();
    expect(parts.closes).toBe(0); // batches are queued: the open one keeps filling
    parts.stopping = true;
    flow.changed();
    await waiting;
  });

  it('the reader is full once the window holds more bytes than its budget, whatever the request count', () => {
    const { flow, parts } = gate(32, 10, 1000);
    parts.queued = 2;
    parts.queuedBytes = 600;
    flow.requestSent(300);
    expect(flow.bytes).toBe(900);
    expect(flow.full).toBe(false); // 2 of 32 batches queued, 1 of 32 requests out, 900 of 1,000 bytes
    flow.requestSent(300);
    expect(flow.full).toBe(true); // 1,200 bytes
    flow.requestAnswered();
    expect(flow.full).toBe(true); // answered but not accounted: its records are still held
    flow.responseHandled(300);
    expect(flow.bytes).toBe(900);
    expect(flow.full).toBe(false);
    parts.queuedBytes = 1100; // the queue alone
    expect(flow.full).toBe(true);
    parts.stopping = true;
    expect(flow.full).toBe(false);
  });

  it('a reader waiting on bytes waits for a response, without closing the open batch early', async () => {
    const { flow, parts } = gate(32, 10, 1000);
    flow.requestSent(600);
    flow.requestSent(600);
    let resumed = false;
    const waiting = flow.waitForRoom().then(() => {
      resumed = true;
    });
    expect(parts.closes).toBe(0); // the queue is empty, but the open batch keeps filling: no small batches
    flow.changed(); // something else changed: still 1,200 bytes
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(false);
    flow.requestAnswered();
    flow.responseHandled(600);
    await waiting;
    expect(flow.bytes).toBe(600);
  });

  it('a single batch larger than the budget is still sent, and the reader goes on once it is answered (no deadlock)', async () => {
    const { flow, parts } = gate(4, 10, 1000);
    parts.queued = 1;
    parts.queuedBytes = 5000; // one closed batch, 5× the budget
    expect(flow.full).toBe(true);
    expect(flow.maySend).toBe(true); // the budget stops the reader, never the sender
    const waiting = flow.waitForRoom();
    expect(parts.pumps).toBe(1);
    // the pump sends it
    parts.queued = 0;
    parts.queuedBytes = 0;
    flow.requestSent(5000);
    expect(flow.full).toBe(true);
    flow.requestAnswered();
    flow.responseHandled(5000);
    await waiting;
    expect(flow.full).toBe(false);
  });
});
