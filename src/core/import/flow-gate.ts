/**
 * Backpressure for one import run, in one place: when the reader must wait for room, when the sender must hold a
 * request back, and waking whoever waits once something frees up. Both sides use it: the Reader asks `full` after
 * every record and waits in `waitForRoom`; the Dispatcher asks `maySend` before each request and reports each
 * request leaving, answered and handled; the Ledger reports each onSettled call resolved; the run beginning to
 * stop calls `changed`. The reader's wait and the end of the run wait on `nextChange`.
 *
 * Between reading and the server, four stretches hold records. Each is bounded here, and so are the bytes of the
 * closed batches and the responses together, which keeps memory flat for any file size:
 * - closed batches waiting to be sent (the Dispatcher's queue): the reader pauses at `backlog`;
 * - the bytes of the window (closed batches not sent, and the batches of requests sent whose response is not
 *   handled yet, each body and its packed records): the reader pauses once they pass `windowBytes`, whatever the
 *   request count (12 MiB: defaults.ts). A batch larger than the budget on its own still goes: the bound
 *   stops the reader, never the sender, and a window over budget always has a batch queued or a response coming;
 * - later rows held back behind an earlier row of their member (member-order.ts): the reader pauses at `maxHeld`;
 * - requests on the wire: at most the concurrency limit's `current` (concurrency-limit.ts finds it);
 * - responses not done with (requests in flight, responses being accounted, and answered responses whose
 *   onSettled call, a journal's fsync, has not resolved): sending pauses at 2 × `backlog`, so a hook slower than
 *   the server slows the sending down instead of letting answered batches pile up in memory behind it. Why the
 *   call is not awaited in the first place: the journal-ordering rule in ledger.ts.
 *
 * The gate counts what is only flow (requests in flight, responses not handled yet); the queue, the held rows and
 * the unsynced hook calls are counted by what holds them, and read here through `FlowParts`.
 */
import { EventEmitter, once } from 'node:events';
import type { ConcurrencyLimit } from './concurrency-limit.js';

export interface FlowParts {
  /** Closed batches waiting to be sent (the Dispatcher's queue). */
  queued(): number;
  /** Their bytes (each batch's body size: batcher.ts). */
  queuedBytes(): number;
  /** Rows held back behind an earlier row of their member (MemberOrder). */
  held(): number;
  /** onSettled calls not resolved yet (the Ledger). */
  unsynced(): number;
  /** True once the run is stopping: nothing more is sent, and the reader no longer waits for room. */
  stopping(): boolean;
  /** Sends what the gate lets through now (the Dispatcher's pump). */
  pump(): void;
  /** Closes the open batch and queues it (the reader's batch, partly filled). */
  closeOpenBatch(): void;
}

export class FlowGate {
  readonly #emitter = new EventEmitter();
  readonly #startLimit: number;
  #inFlight = 0;
  #outstanding = 0;
  #outstandingBytes = 0;

  constructor(
    private readonly limit: ConcurrencyLimit,
    /** Held rows at which the reader pauses (--max-held-rows, default 10,000). */
    readonly maxHeld: number,
    private readonly parts: FlowParts,
    /** Bytes of the window at which the reader pauses (`windowBytes`, defaults.ts). */
    readonly windowBytes = Number.POSITIVE_INFINITY,
  ) {
    this.#startLimit = limit.current;
  }

  /**
   * Closed batches that may wait to be sent, and half the responses not done with: the live limit, but never less
   * than where the run started, so a limit an overloaded server cut to 1 does not also stall the reader and the
   * journal.
   */
  get backlog(): number {
    return Math.max(this.limit.current, this.#startLimit);
  }

  // ---- the reading side

  /** The queued batches, the held rows or the window's bytes are full (asked after every record, without a promise). */
  get full(): boolean {
    const { parts } = this;
    return (
      !parts.stopping() &&
      (parts.queued() >= this.backlog || parts.held() >= this.maxHeld || this.bytes > this.windowBytes)
    );
  }

  /** Bytes of the window: closed batches not sent, and requests whose response is not handled yet. */
  get bytes(): number {
    return this.parts.queuedBytes() + this.#outstandingBytes;
  }

  /** Returns once there is room again, or the run is stopping. */
  async waitForRoom(): Promise<void> {
    const { parts } = this;
    while (this.full) {
      // Held rows only move once the batch holding their predecessor is sent: never wait on an unsent batch. A
      // window over its bytes waits for a response instead (the open batch keeps filling: no small batches).
      if (parts.held() >= this.maxHeld) parts.closeOpenBatch();
      parts.pump();
      await this.nextChange();
    }
  }

  // ---- the sending side

  /** Another request may leave now. */
  get maySend(): boolean {
    return (
      !this.parts.stopping() &&
      this.#inFlight < this.limit.current &&
      this.#outstanding + this.parts.unsynced() < 2 * this.backlog
    );
  }

  /** Requests waiting for their answer. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests sent whose response is not handled yet: in flight, or answered and being accounted. */
  get outstanding(): number {
    return this.#outstanding;
  }

  /** A request of a batch of `bytes` left (its bytes move from the queue to the outstanding responses). */
  requestSent(bytes: number): void {
    this.#inFlight++;
    this.#outstanding++;
    this.#outstandingBytes += bytes;
  }

  requestAnswered(): void {
    this.#inFlight--;
  }

  /** The response to a batch of `bytes` was accounted (or its handling failed): sends what may go, wakes who waits. */
  responseHandled(bytes: number): void {
    this.#outstanding--;
    this.#outstandingBytes -= bytes;
    this.parts.pump();
    this.changed();
  }

  /** An onSettled call resolved (`unsynced` went down): sends what may go now and wakes whoever waits. */
  hookCallResolved(): void {
    this.parts.pump();
    this.changed();
  }

  // ---- waking

  /** Something changed (room freed, records settled, the run began to stop): wakes whoever waits. */
  changed(): void {
    this.#emitter.emit('change');
  }

  /** Resolves at the next changed(); one before this call is not remembered, so check, then wait. */
  async nextChange(): Promise<void> {
    await once(this.#emitter, 'change');
  }
}
