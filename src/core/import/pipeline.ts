/**
 * The import use case's engine: candidates in, every record accounted for, a summary out. Three parts with named
 * state, wired here:
 * - the Reader (reader.ts): input, hooks, admission in per-member order (MemberOrder);
 * - the sender: the Batcher closes batches (and owns the batch size, lowered after a 413), the Dispatcher sends
 *   them through the concurrency limit (concurrency-limit.ts) and turns responses into outcomes;
 * - the Ledger (ledger.ts): settles every outcome, the only writer of the buckets.
 *
 * Reading and sending are decoupled by a small bounded queue of closed batches waiting behind the requests in
 * flight: the reader runs ahead while requests are out, and pauses when the queue is full, so memory stays flat for
 * any file size. The FlowGate (flow-gate.ts) holds every such bound, and both sides ask it.
 */
import type { InputError } from '../../errors.js';
import { Batcher, type PendingRecord } from './batcher.js';
import { createLimit, type ConcurrencyLimit } from './concurrency-limit.js';
import { IMPORT_DEFAULTS } from './defaults.js';
import { Dispatcher } from './dispatcher.js';
import { FailFast } from './fail-fast.js';
import { FlowGate } from './flow-gate.js';
import type { ImportEvent } from './events.js';
import { Ledger } from './ledger.js';
import { MemberOrder } from './member-order.js';
import { Reader, type ReaderParts } from './reader.js';
import { StopControl } from './stop-control.js';
import type { ImportOptions, ImportSummary } from './types.js';

export { IMPORT_DEFAULTS };

const PROGRESS_EVERY_MS = 200;

/** The parts of one run, named: what the reader, the sender and the end of the run share. */
interface Run extends Omit<ReaderParts, 'tick'> {
  options: ImportOptions;
  limit: ConcurrencyLimit;
  started: number;
  emit(event: ImportEvent): void;
  warnings(): number;
  progress(): void;
}

export async function runPipeline(options: ImportOptions): Promise<ImportSummary> {
  const run = assemble(options);
  run.emit({
    type: 'run-started',
    batchSize: run.batcher.maxItems,
    maxBatchBytes: run.batcher.maxBytes,
    concurrency: run.limit.current,
    adaptive: run.limit.phase !== 'fixed',
    totalBytes: options.totalBytes,
  });
  let lastProgress = 0;
  const tick = () => {
    if (performance.now() - lastProgress <= PROGRESS_EVERY_MS) return;
    lastProgress = performance.now();
    run.progress();
  };
  const reader = new Reader(options, { ...run, tick });
  const inputError = await reader.read();
  await sendTheRest(run);
  // every response's onSettled call (its journal entry on disk, its hashes in the state) before the summary
  await run.ledger.synced().catch((error: unknown) => run.stop.fatal(error));
  run.stop.finish();
  if (run.stop.fatalError !== undefined) throw run.stop.fatalError;
  const summary = summarize(run, inputError);
  run.progress();
  run.emit({ type: 'finished', summary });
  return summary;
}

/** Builds the parts and links them: the Ledger releases a member's next row to the batcher, the Dispatcher settles into the Ledger. */
function assemble(options: ImportOptions): Run {
  let warnings = 0;
  const emit = (event: ImportEvent) => {
    if (event.type === 'warning') warnings++;
    options.onEvent?.(event);
  };
  const limit = createLimit(options);
  const order = new MemberOrder();
  const batcher = new Batcher(
    options.batchSize ?? IMPORT_DEFAULTS.batchSize,
    options.maxBatchBytes ?? IMPORT_DEFAULTS.maxBatchBytes,
  );
  const flow = new FlowGate(
    limit,
    options.maxHeldRows ?? IMPORT_DEFAULTS.maxHeldRows,
    {
      queued: () => dispatcher.ready.length,
      queuedBytes: () => dispatcher.readyBytes,
      held: () => order.held,
      unsynced: () => ledger.unsynced,
      stopping: () => stop.stopping,
      pump: () => dispatcher.pump(),
      closeOpenBatch: () => {
        const batch = batcher.close();
        if (batch) dispatcher.enqueue(batch);
      },
    },
    options.windowBytes ?? IMPORT_DEFAULTS.windowBytes,
  );
  const hardStop = () => void options.transport.destroy?.().catch(() => undefined);
  const stop = new StopControl({
    stopSignal: options.stopSignal,
    abortSignal: options.abortSignal,
    outputFailedSignal: options.outputFailedSignal,
    graceMs: options.graceMs ?? IMPORT_DEFAULTS.graceMs,
    emit,
    notify: () => flow.changed(),
    hardStop,
    stopWaits: () => options.transport.stopWaiting?.(),
  });
  const ledger: Ledger = new Ledger(
    order,
    options.hooks ?? {},
    {
      // a member's next row, released when the row before it settled
      release: (next: PendingRecord) => {
        if (stop.stopping) void ledger.settleFailed([next], stop.reasonText()!, stop.reasonText()!);
        else for (const batch of batcher.add(next)) dispatcher.enqueue(batch);
      },
      onSynced: () => flow.hookCallResolved(),
      onHookFailed: (error) => stop.fatal(error),
    },
    options.rejects,
  );
  const failFast = new FailFast();
  const dispatcher: Dispatcher = new Dispatcher({
    transport: options.transport,
    limit,
    flow,
    batcher,
    settler: ledger,
    emit,
    requestSignal: stop.requestSignal,
    onCredentialsRefused: (status, message) => stop.credentialsRefused(status, message),
    onAnswer: (response) => {
      const { retryAfterMs, maxRetryAfterMs } = response.kind === 'failed' ? response.cause : {};
      if (retryAfterMs !== undefined && response.kind === 'failed' && response.cause.kind === 'http')
        stop.serverAskedToWait({
          retryAfterMs,
          maxRetryAfterMs: maxRetryAfterMs ?? retryAfterMs,
          status: response.status,
        });
      const diagnosis = failFast.observe(response);
      if (diagnosis) stop.unreachable(diagnosis);
    },
    stopReasonText: () => stop.reasonText(),
    onFatal: (error) => stop.fatal(error),
  });
  const progress = () => {
    const { rows: recordsRead, settled, confirmed } = ledger;
    emit({
      type: 'progress',
      progress: {
        recordsRead,
        settled,
        confirmed,
        inFlight: flow.inFlight,
        concurrency: limit.current,
        bytesRead: options.bytesRead?.(),
        totalBytes: options.totalBytes,
      },
    });
  };
  return {
    options,
    started: performance.now(),
    limit,
    ledger,
    order,
    batcher,
    dispatcher,
    stop,
    flow,
    emit,
    warnings: () => warnings,
    progress,
  };
}

/** Sends what is left after the reading, then waits for every record to settle; on a stop, what was not sent fails. */
async function sendTheRest({ dispatcher, batcher, order, stop, ledger, flow, progress }: Run): Promise<void> {
  while (flow.outstanding > 0 || dispatcher.ready.length > 0 || batcher.size > 0 || order.held > 0) {
    if (stop.stopping) {
      const reason = stop.reasonText()!;
      const unsent = [...batcher.drain(), ...dispatcher.drainReady(), ...order.drainHeld()];
      if (unsent.length > 0) {
        // settle them, then look again: what was in flight may have settled meanwhile
        await ledger.settleFailed(unsent, reason, reason);
        continue;
      }
      if (flow.outstanding === 0) break;
    } else {
      if (dispatcher.ready.length === 0) {
        const batch = batcher.close();
        if (batch) dispatcher.enqueue(batch);
      }
      dispatcher.pump();
    }
    progress();
    await flow.nextChange();
  }
}

function summarize(run: Run, inputError: InputError | undefined): ImportSummary {
  const { options, batcher, stop, limit } = run;
  const { topReasons, ...buckets } = run.ledger.books();
  return {
    ...buckets,
    batches: batcher.closed,
    requests: options.transport.stats.requests,
    retries: options.transport.stats.retries,
    durationMs: Math.round(performance.now() - run.started),
    topReasons,
    stopReason: stop.reason,
    stopMessage: stop.message,
    serverWait: stop.serverWait,
    finalBatchSize: batcher.maxItems,
    concurrency: { final: limit.current, max: limit.peak },
    warnings: run.warnings(),
    duplicateMembers: options.duplicates?.report(),
    omittedCells: options.omitted?.report(),
    inputError,
  };
}
