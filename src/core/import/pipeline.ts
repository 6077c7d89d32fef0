/**
 * The import use case: candidates in, every record accounted for, a summary out.
 *
 * Reading and sending are decoupled by a small bounded queue of closed batches (at most `concurrency` waiting
 * behind the `concurrency` in flight): the reader runs ahead while requests are out, and pauses when the queue is
 * full, so memory stays flat for any file size. Per-member ordering is MemberOrder's job; responses are turned
 * into outcomes by the Dispatcher; every outcome goes through the Settler into the Tally.
 */
import { InputError } from '../../errors.js';
import { issuesToReason, type Candidate } from '../candidate.js';
import { Batcher, type PendingRecord } from './batcher.js';
import { ADAPTIVE_DEFAULTS, createLimit } from './concurrency-limit.js';
import { Dispatcher } from './dispatcher.js';
import { FailFast } from './fail-fast.js';
import { inputChunks } from './input-chunks.js';
import { ItemSlabs, ownBytes } from './item-bytes.js';
import type { ImportEvent } from './events.js';
import { MemberOrder } from './member-order.js';
import { createSettler, laterRowReason, LATER_ROW_COUNT_AS } from './settle.js';
import { StopControl } from './stop-control.js';
import { Tally } from './tally.js';
import type { ImportOptions, ImportSummary, PreSendDecision } from './types.js';

export const IMPORT_DEFAULTS = { batchSize: 500, maxBatchBytes: 1024 * 1024, maxConcurrency: ADAPTIVE_DEFAULTS.max, maxHeldRows: 10_000, graceMs: 10_000 } as const;

const PROGRESS_EVERY_MS = 200;
/** A record's bytes before it is admitted (a row that fails with its member is never encoded). */
const NO_BYTES = Buffer.alloc(0);

export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? IMPORT_DEFAULTS.batchSize;
  const maxBatchBytes = options.maxBatchBytes ?? IMPORT_DEFAULTS.maxBatchBytes;
  const limit = createLimit(options);
  const maxHeld = options.maxHeldRows ?? IMPORT_DEFAULTS.maxHeldRows;
  const hooks = options.hooks ?? {};
  // The input as read is kept until a record settles only for the rejects file: records waiting in queues
  // survive a few garbage collections, and their CSV cells would double what gets promoted.
  const keepRaw = options.rejects !== undefined;
  let warnings = 0;
  const emit = (event: ImportEvent) => {
    if (event.type === 'warning') warnings++;
    options.onEvent?.(event);
  };

  const tally = new Tally(options.rejects);
  const order = new MemberOrder();
  const batcher = new Batcher(batchSize, maxBatchBytes);
  const slabs = new ItemSlabs();
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

  const failFast = new FailFast();
  const settler = createSettler(tally, order, hooks, {
    release: (next) => release(next),
    onSynced: () => {
      dispatcher.pump();
      notify();
    },
    onHookFailed: (error) => stop.fatal(error),
  });
  const dispatcher = new Dispatcher({
    transport: options.transport,
    limit,
    batcher,
    settler,
    emit,
    requestSignal: stop.requestSignal,
    onCredentialsRefused: (status, message) => stop.credentialsRefused(status, message),
    onAnswer: (response) => {
      const diagnosis = failFast.observe(response);
      if (diagnosis) stop.unreachable(diagnosis);
    },
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
      progress: { recordsRead: tally.rows, settled: tally.settled, confirmed: tally.confirmed, inFlight: dispatcher.inFlight, concurrency: limit.current, bytesRead: options.bytesRead?.(), totalBytes: options.totalBytes },
    });
  };

  emit({ type: 'run-started', batchSize, maxBatchBytes, concurrency: limit.current, adaptive: limit.phase !== 'fixed', totalBytes: options.totalBytes });

  // ---- reading: runs ahead of sending until the queue of closed batches or the held rows are full. The input comes
  // a chunk at a time (one promise per 64 KB read, not per record); the checks below still run after every record,
  // so a full queue, --limit or a stop pauses or ends the reading mid-chunk (the rest of that chunk is not counted).
  const { iterator, toCandidate } = inputChunks(options);
  const rowLimit = options.limit ?? Infinity;
  let exhausted = false;
  let inputError: InputError | undefined;
  try {
    reading: while (!stop.stopping && tally.rows < rowLimit) {
      // No race against the stop here: a race per read would pile reactions onto one pending promise. The
      // caller closes the source on stop (the CLI does), which ends a read that is waiting on stdin.
      const next = await iterator.next();
      if (stop.stopping) break;
      if (next.done) {
        exhausted = true;
        break;
      }
      const chunk = next.value;
      for (let i = 0; i < chunk.length; i++) {
        if (hooks.beforeMap?.(chunk[i]) === 'unchanged') {
          tally.rows++;
          tally.unchanged++;
        } else {
          const candidate = toCandidate(chunk[i]);
          if (hooks.select && !hooks.select(candidate)) continue;
          tally.rows++;
          const taking = take(candidate);
          if (taking) await taking;
        }
        if ((tally.rows & 511) === 0 && performance.now() - lastProgress > PROGRESS_EVERY_MS) progress();
        while (!stop.stopping && (dispatcher.ready.length >= limit.current || order.held >= maxHeld)) {
          // Held rows only move once the batch holding their predecessor is sent: never wait on an unsent batch.
          if (order.held >= maxHeld || dispatcher.ready.length === 0) flushOpen();
          dispatcher.pump();
          await changed;
        }
        if (stop.stopping || tally.rows >= rowLimit) break reading;
      }
    }
  } catch (error) {
    // a source closed because the run is stopping may end its pending read with an error: that is the stop
    if (stop.stopping) {
      // nothing to add
    } else if (error instanceof InputError) {
      // unreadable input midway: the records read before it are sent and accounted, then the error is reported
      inputError = error;
    } else {
      stop.fatal(error);
    }
  } finally {
    // A pending next() on an async generator would make return() wait for it; don't block the stop on stdin.
    if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }

  /**
   * One record read. Synchronous unless a hook or the rejects file makes it wait: a promise per record would
   * cost more than the batching itself.
   */
  function take(candidate: Candidate): Promise<void> | void {
    if (!candidate.valid) return tally.invalidRecord(candidate, candidate.issues, issuesToReason(candidate.issues));
    const json = JSON.stringify(candidate.item);
    if (!hooks.beforeSend) return send(candidate, json);
    const decided = hooks.beforeSend(candidate, json);
    return decided instanceof Promise ? decided.then((decision) => apply(candidate, json, decision)) : apply(candidate, json, decided);
  }

  function apply(candidate: Candidate & { valid: true }, json: string, decision: PreSendDecision): Promise<void> | void {
    if (decision === 'send') return send(candidate, json);
    if (decision === 'unchanged') {
      tally.unchanged++;
      return;
    }
    if (decision.outcome === 'imported') return tally.confirm(1, 0);
    if (decision.outcome === 'updated') return tally.confirm(0, 1);
    const info = { ...candidate, memberId: candidate.item.memberId };
    return tally.reject(info, decision.outcome, decision.reason ?? `${decision.outcome} in an earlier run`);
  }

  function send(candidate: Candidate & { valid: true }, json: string): Promise<void> | void {
    const record: PendingRecord = { record: candidate.record, line: candidate.line, memberId: candidate.item.memberId, slab: NO_BYTES, at: 0, bytes: 0, raw: keepRaw ? candidate.raw : undefined };
    const admission = order.admit(record);
    if (admission.kind === 'go') {
      slabs.put(json, record);
      for (const batch of batcher.add(record)) dispatcher.enqueue(batch);
    } else if (admission.kind === 'held') {
      ownBytes(json, record);
    } else {
      return tally.reject(record, 'failed', laterRowReason(admission.earlier), LATER_ROW_COUNT_AS);
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
  // every response's onSettled call (its journal entry on disk, its hashes in the state) before the summary
  await settler.synced().catch((error: unknown) => stop.fatal(error));
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
    concurrency: { final: limit.current, max: limit.peak },
    warnings,
    inputError,
  };
  progress();
  emit({ type: 'finished', summary });
  return summary;
}
