/**
 * The import use case: candidates in, every record accounted for, a summary out.
 *
 * Reading and sending are decoupled by a small bounded queue of closed batches (at most `concurrency` waiting
 * behind the `concurrency` in flight): the reader runs ahead while requests are out, and pauses when the queue is
 * full, so memory stays flat for any file size. Per-member ordering is MemberOrder's job; responses are turned
 * into outcomes by the Dispatcher; every outcome goes through the Settler into the Tally.
 */
import { issuesToReason, type Candidate } from '../candidate.js';
import { Batcher, type PendingRecord } from './batcher.js';
import { Dispatcher } from './dispatcher.js';
import type { ImportEvent } from './events.js';
import { MemberOrder } from './member-order.js';
import { createSettler, laterRowReason, LATER_ROW_COUNT_AS } from './settle.js';
import { StopControl } from './stop-control.js';
import { Tally } from './tally.js';
import type { ImportOptions, ImportSummary } from './types.js';

export const IMPORT_DEFAULTS = { batchSize: 500, maxBatchBytes: 1024 * 1024, concurrency: 4, maxHeldRows: 10_000, graceMs: 10_000 } as const;

const PROGRESS_EVERY_MS = 200;

export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? IMPORT_DEFAULTS.batchSize;
  const maxBatchBytes = options.maxBatchBytes ?? IMPORT_DEFAULTS.maxBatchBytes;
  const concurrency = options.concurrency ?? IMPORT_DEFAULTS.concurrency;
  const maxHeld = options.maxHeldRows ?? IMPORT_DEFAULTS.maxHeldRows;
  const hooks = options.hooks ?? {};
  const emit = (event: ImportEvent) => options.onEvent?.(event);

  const tally = new Tally(options.rejects);
  const order = new MemberOrder();
  const batcher = new Batcher(batchSize, maxBatchBytes);
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const notify = () => {
    wake();
    changed = new Promise<void>((resolve) => (wake = resolve));
  };
  const stop = new StopControl({ stopSignal: options.stopSignal, abortSignal: options.abortSignal, graceMs: options.graceMs ?? IMPORT_DEFAULTS.graceMs,
    emit,
    notify,
    hardStop: () => void options.transport.destroy?.().catch(() => undefined),
  });

  const settler = createSettler(tally, order, hooks, (next) => release(next));
  const dispatcher = new Dispatcher({
    transport: options.transport,
    concurrency,
    batcher,
    settler,
    emit,
    requestSignal: stop.requestSignal,
    onCredentialsRefused: (status, message) => stop.credentialsRefused(status, message),
    stopReasonText: () => stop.reasonText(),
    notify,
    canSend: () => !stop.stopping,
    onFatal: (error) => stop.fatal(error),
  });

  /** A member's next row, released when the row before it settled. */
  function release(record: PendingRecord): void {
    if (stop.stopping) {
      void settler.settleFailed([record], stop.reasonText()!, stop.reasonText()!);
      return;
    }
    for (const batch of batcher.add(record)) dispatcher.enqueue(batch);
  }

  const flushOpen = () => {
    const batch = batcher.close();
    if (batch) dispatcher.enqueue(batch);
  };

  let lastProgress = 0;
  const progress = () => {
    lastProgress = performance.now();
    emit({
      type: 'progress',
      progress: { recordsRead: tally.rows, settled: tally.settled, confirmed: tally.confirmed, inFlight: dispatcher.inFlight, bytesRead: options.bytesRead?.(), totalBytes: options.totalBytes },
    });
  };

  emit({ type: 'run-started', batchSize, maxBatchBytes, concurrency, totalBytes: options.totalBytes });

  // ---- reading: runs ahead of sending until the queue of closed batches or the held rows are full
  const iterator = options.candidates[Symbol.asyncIterator]();
  let exhausted = false;
  try {
    while (!stop.stopping) {
      // No race against the stop here: a race per record would pile reactions onto one pending promise. The
      // caller closes the source on stop (the CLI does), which ends a read that is waiting on stdin.
      const next = await iterator.next();
      if (stop.stopping) break;
      if (next.done) {
        exhausted = true;
        break;
      }
      const candidate = next.value;
      if (hooks.select && !hooks.select(candidate)) continue;
      tally.rows++;
      await take(candidate);
      if ((tally.rows & 511) === 0 && performance.now() - lastProgress > PROGRESS_EVERY_MS) progress();
      while (!stop.stopping && (dispatcher.ready.length >= concurrency || order.held >= maxHeld)) {
        // Held rows only move once the batch holding their predecessor is sent: never wait on an unsent batch.
        if (order.held >= maxHeld || dispatcher.ready.length === 0) flushOpen();
        dispatcher.pump();
        await changed;
      }
      if (options.limit !== undefined && tally.rows >= options.limit) break;
    }
  } catch (error) {
    // a source closed because the run is stopping may end its pending read with an error: that is the stop
    if (!stop.stopping) stop.fatal(error);
  } finally {
    // A pending next() on an async generator would make return() wait for it; don't block the stop on stdin.
    if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }

  async function take(candidate: Candidate): Promise<void> {
    if (!candidate.valid) {
      await tally.invalidRecord(candidate, candidate.issues, issuesToReason(candidate.issues));
      return;
    }
    const json = JSON.stringify(candidate.item);
    if (hooks.beforeSend) {
      const decided = hooks.beforeSend(candidate, json);
      const decision = decided instanceof Promise ? await decided : decided;
      if (decision === 'unchanged') {
        tally.unchanged++;
        return;
      }
      if (decision !== 'send') {
        const info = { ...candidate, memberId: candidate.item.memberId };
        if (decision.outcome === 'imported') tally.confirm(1, 0);
        else if (decision.outcome === 'updated') tally.confirm(0, 1);
        else await tally.reject(info, decision.outcome, decision.reason ?? `${decision.outcome} in an earlier run`);
        return;
      }
    }
    const record: PendingRecord = { record: candidate.record, line: candidate.line, memberId: candidate.item.memberId, json, bytes: Buffer.byteLength(json), raw: candidate.raw };
    const admission = order.admit(record);
    if (admission.kind === 'go') {
      for (const batch of batcher.add(record)) dispatcher.enqueue(batch);
    } else if (admission.kind === 'failed-earlier') {
      await tally.reject(record, 'failed', laterRowReason(admission.earlier), LATER_ROW_COUNT_AS);
    }
  }

  // ---- sending what is left, then waiting for every record to settle
  while (dispatcher.busy > 0 || dispatcher.ready.length > 0 || batcher.size > 0 || order.held > 0) {
    if (stop.stopping) {
      const reason = stop.reasonText()!;
      const unsent = [...batcher.drain(), ...dispatcher.drainReady(), ...order.drainHeld()];
      if (unsent.length > 0) {
        // settle them, then look again: what was in flight may have settled meanwhile
        await settler.settleFailed(unsent, reason, reason);
        continue;
      }
      if (dispatcher.busy === 0) break;
    } else {
      if (dispatcher.ready.length === 0) flushOpen();
      dispatcher.pump();
    }
    progress();
    await changed;
  }
  stop.finish();
  if (stop.fatalError !== undefined) throw stop.fatalError;

  const summary: ImportSummary = {
    rows: tally.rows,
    invalid: tally.invalid,
    unchanged: tally.unchanged,
    importedCount: tally.importedCount,
    updatedCount: tally.updatedCount,
    skipped: tally.skipped,
    rejected: tally.rejected,
    failed: tally.failed,
    batches: batcher.closed,
    requests: options.transport.stats.requests,
    retries: options.transport.stats.retries,
    durationMs: Math.round(performance.now() - started),
    topReasons: tally.topReasons(),
    stopReason: stop.reason,
    stopMessage: stop.message,
    finalBatchSize: batcher.maxItems,
    warnings: 0,
  };
  progress();
  emit({ type: 'finished', summary });
  return summary;
}
