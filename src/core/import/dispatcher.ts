/**
 * Sends closed batches, at most `concurrency` at once, and turns each response into outcomes:
 * 200 → accounted (counts must add up); 400 → bisected until each refused record stands alone (rejected);
 * 413 → split, and the batch size lowered for the rest of the run; 401/403 → the run stops at once;
 * anything else (after the client's retries) → failed. Bisect halves and splits jump the queue, so records
 * already on their way finish first and their members' later rows are not held longer than needed.
 */
import { causeKey } from '../../http/failure.js';
import { batchBody, type Batch, type Batcher, type PendingRecord } from './batcher.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import type { ImportEvent } from './events.js';
import type { FlowGate } from './flow-gate.js';
import { accountResponse, recordRange } from './response.js';
import type { Settler } from './settle.js';
import type { ImportResponse, ImportTransport } from './types.js';

export interface DispatcherOptions {
  transport: ImportTransport;
  /** Hears every attempt of every request (the adaptive limit sizes itself on them). */
  limit: ConcurrencyLimit;
  /** Whether a request may leave now, and the count of requests out (flow-gate.ts). */
  flow: FlowGate;
  batcher: Batcher;
  settler: Settler;
  emit: (event: ImportEvent) => void;
  /** Aborts requests in flight (hard stop, end of grace, credentials refused). */
  requestSignal: AbortSignal;
  /** Credentials refused: the pipeline stops everything. */
  onCredentialsRefused: (status: 401 | 403, message: string) => void;
  /** Every final response, before anything more is sent (the early stop watches them). */
  onAnswer?: (response: ImportResponse) => void;
  /** Why an aborted request ended, when the run is stopping. */
  stopReasonText: () => string | undefined;
  onFatal: (error: unknown) => void;
}

export class Dispatcher {
  /** Closed batches waiting to be sent, bisect halves and 413 splits first. */
  readonly ready: Batch[] = [];
  #readyBytes = 0;

  constructor(private readonly o: DispatcherOptions) {}

  /** Bytes of the batches in `ready` (the flow gate's window counts them). */
  get readyBytes(): number {
    return this.#readyBytes;
  }

  enqueue(batch: Batch): void {
    this.ready.push(batch);
    this.#readyBytes += batch.bytes;
    this.pump();
  }

  /** Sends queued batches while the flow gate lets them go (never once the run is stopping, not even bisect halves). */
  pump(): void {
    while (this.ready.length > 0 && this.o.flow.maySend) {
      const batch = this.ready.shift()!;
      this.#readyBytes -= batch.bytes;
      void this.send(batch);
    }
  }

  /** Takes every batch not yet sent (the run is stopping). */
  drainReady(): PendingRecord[] {
    this.#readyBytes = 0;
    return this.ready.splice(0).flatMap((batch) => batch.records);
  }

  /** `ready` was rearranged (413 resplit, halves in front): its bytes counted again. */
  #recount(): void {
    let bytes = 0;
    for (const batch of this.ready) bytes += batch.bytes;
    this.#readyBytes = bytes;
  }

  private async send(batch: Batch): Promise<void> {
    const { flow } = this.o;
    flow.requestSent(batch.bytes);
    const { records } = batch;
    const range = rangeOf(batch);
    this.o.emit({
      type: 'batch-sent',
      batch: batch.id,
      ...range,
      size: records.length,
      bytes: batch.bytes,
      attempt: batch.attempt,
    });
    const started = performance.now();
    let response: ImportResponse;
    try {
      response = await this.o.transport.postImport(
        batchBody(records),
        this.o.requestSignal,
        this.o.limit.attempt,
        records.length,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      response = {
        kind: 'failed',
        message,
        retries: 0,
        cause: { kind: 'network', code: 'network', retries: 0, gaveUp: false, reachedServer: true },
      };
    }
    flow.requestAnswered();
    // credentials refused: stop before anything else is sent (the others in flight may still be answered)
    if (response.kind === 'auth') this.o.onCredentialsRefused(response.status, response.message);
    this.o.onAnswer?.(response);
    this.pump();
    try {
      await this.handle(batch, response, performance.now() - started);
    } catch (error) {
      this.o.onFatal(error);
    } finally {
      flow.responseHandled(batch.bytes);
    }
  }

  private async handle(batch: Batch, response: ImportResponse, durationMs: number): Promise<void> {
    const { records } = batch;
    const range = rangeOf(batch);
    const { emit, settler } = this.o;
    switch (response.kind) {
      case 'ok': {
        const account = accountResponse(records, response.result);
        const skipped = account.skipped.map(({ record, reason }) => ({
          record,
          reason: reason ?? '(no reason given by the server)',
        }));
        if (account.addsUp) {
          await settler.settleAnswered({
            confirmed: account.rest,
            importedCount: account.importedCount,
            updatedCount: account.updatedCount,
            skipped,
            rejected: [],
          });
          emit({
            type: 'batch-confirmed',
            batch: batch.id,
            ...range,
            size: records.length,
            importedCount: account.importedCount,
            updatedCount: account.updatedCount,
            skipped: skipped.length,
            durationMs,
          });
          return;
        }
        const where = `${recordRange(records)} (${records.length} records)`;
        emit({
          type: 'warning',
          code: 'counts-do-not-add-up',
          message: `server response for ${where} does not add up: ${account.problem}; the ${account.rest.length} records it does not account for count as failed (safe to re-run)`,
        });
        await settler.settleAnswered({ confirmed: [], importedCount: 0, updatedCount: 0, skipped, rejected: [] });
        await settler.settleFailed(
          account.rest,
          `not confirmed: the server's counts for ${where} did not add up (${account.problem})`,
          'not confirmed: server counts did not add up',
        );
        return;
      }
      case 'bad-request': {
        if (records.length === 1) {
          const { name, message, details } = response.error;
          const summary = `${name}: ${message}`;
          const reason =
            details === undefined || details === null ? summary : `${summary} ${truncate(safeJson(details), 500)}`;
          await settler.settleAnswered({
            confirmed: [],
            importedCount: 0,
            updatedCount: 0,
            skipped: [],
            rejected: [{ record: records[0]!, reason, countAs: summary }],
          });
          emit({ type: 'records-rejected', batch: batch.id, records: [records[0]!.record], status: 400 });
          return;
        }
        emit({ type: 'batch-bisected', batch: batch.id, ...range, size: records.length, status: 400 });
        this.requeueHalves(batch, 'bisect');
        return;
      }
      case 'too-large': {
        if (records.length === 1) {
          const reason = `the server refused this record as too large even alone (413${response.message ? `: ${response.message}` : ''}); it is ${records[0]!.bytes} bytes of JSON`;
          await settler.settleAnswered({
            confirmed: [],
            importedCount: 0,
            updatedCount: 0,
            skipped: [],
            rejected: [{ record: records[0]!, reason, countAs: 'too large even alone (413)' }],
          });
          emit({ type: 'records-rejected', batch: batch.id, records: [records[0]!.record], status: 413 });
          return;
        }
        const lowered = this.o.batcher.tooLarge(records.length);
        if (lowered !== undefined) {
          emit({
            type: 'warning',
            code: 'batch-size-lowered',
            message: `the server refused a batch of ${records.length} records as too large (413): batch size lowered to ${lowered} for the rest of the run`,
          });
          this.ready.push(...this.o.batcher.resplit(this.ready.splice(0)));
          this.#recount();
        }
        emit({
          type: 'batch-split',
          batch: batch.id,
          ...range,
          size: records.length,
          status: 413,
          batchSize: this.o.batcher.maxItems,
        });
        this.requeueHalves(batch, 'split');
        return;
      }
      case 'auth': {
        await settler.settleFailed(
          records,
          `not confirmed: the server refused the credentials (${response.status}); nothing more was sent`,
          `not confirmed: credentials refused (${response.status})`,
        );
        return;
      }
      case 'failed': {
        const stopped = this.o.requestSignal.aborted ? this.o.stopReasonText() : undefined;
        const reason =
          stopped ?? `not confirmed: ${response.message}${response.status ? ` (HTTP ${response.status})` : ''}`;
        const countAs = stopped ?? `not confirmed: ${causeKey(response.cause)}`;
        emit({
          type: 'batch-failed',
          batch: batch.id,
          ...range,
          size: records.length,
          status: response.status,
          message: stopped ?? response.message,
        });
        await settler.settleFailed(records, reason, countAs);
        return;
      }
    }
  }

  /** Halves go to the front of the queue, so records already on their way finish first. */
  private requeueHalves(batch: Batch, attempt: 'bisect' | 'split'): void {
    this.ready.unshift(...this.o.batcher.halves(batch, attempt));
    this.#recount();
  }
}

function rangeOf(batch: Batch): { firstRecord: number; lastRecord: number } {
  let first = Infinity;
  let last = -Infinity;
  for (const r of batch.records) {
    if (r.record < first) first = r.record;
    if (r.record > last) last = r.record;
  }
  return { firstRecord: first, lastRecord: last };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
