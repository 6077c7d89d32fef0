/**
 * The import's reading side: takes the input chunk by chunk, asks the hooks (--changed-only, --shard, --resume)
 * about each record, counts it in the Ledger, and admits the valid ones to sending in per-member order. It runs
 * ahead of sending until the flow gate finds the queue of closed batches or the held rows full (flow-gate.ts),
 * then waits there for room.
 *
 * The input comes a chunk at a time (one promise per 64 KB read, not per record); the checks still run after every
 * record, so a full queue, --limit or a stop pauses or ends the reading mid-chunk (the rest of that chunk is not
 * counted).
 */
import { InputError, ReaderFailure } from '../../errors.js';
import { issuesToReason, type Candidate } from '../candidate.js';
import { refused } from '../duplicates/duplicate-members.js';
import { type EncodedRecord, isEncoded, type SourceRecord } from '../../io/source.js';
import type { MemberUpsertItem } from '../../schemas/member.js';
import type { Batcher, PendingRecord } from './batcher.js';
import type { Dispatcher } from './dispatcher.js';
import type { FlowGate } from './flow-gate.js';
import { inputChunks } from './input-chunks.js';
import { ItemSlabs, ownBytes } from './item-bytes.js';
import type { Ledger } from './ledger.js';
import type { MemberOrder } from './member-order.js';
import type { StopControl } from './stop-control.js';
import type { ImportHooks, ImportOptions, PreSendDecision } from './types.js';

/** A record's bytes before it is admitted (a row that fails with its member is never encoded). */
const NO_BYTES = Buffer.alloc(0);

export interface ReaderParts {
  ledger: Ledger;
  order: MemberOrder;
  batcher: Batcher;
  dispatcher: Dispatcher;
  stop: StopControl;
  flow: FlowGate;
  /** Called after every 512 records: the pipeline decides whether a progress event is due. */
  tick(): void;
}

export class Reader {
  readonly #hooks: ImportHooks;
  /** The input as read is kept until a record settles only for the rejects file (else its CSV cells would double what the GC promotes). */
  readonly #keepRaw: boolean;
  readonly #slabs = new ItemSlabs();

  constructor(
    private readonly options: ImportOptions,
    private readonly parts: ReaderParts,
  ) {
    this.#hooks = options.hooks ?? {};
    this.#keepRaw = options.rejects !== undefined;
  }

  /** Reads until the input ends, --limit, or a stop. Returns the input's error when it turned unreadable midway. */
  async read(): Promise<InputError | undefined> {
    // rows the CSV worker maps, checks and serialises need none of their cells here: not with a hook that reads a
    // row before or instead of sending it (--changed-only, --shard, --resume), nor with a rejects file
    const { beforeMap, select, beforeSend } = this.#hooks;
    if (!this.#keepRaw && !beforeMap && !select && !beforeSend) this.options.chunks?.encodeAhead?.();
    const { iterator, toCandidate } = inputChunks(this.options);
    let exhausted = false;
    try {
      exhausted = await this.#readChunks(iterator, toCandidate);
    } catch (error) {
      // a source closed because the run is stopping may end its pending read with an error: that is the stop
      if (this.parts.stop.stopping) return undefined;
      // unreadable input midway: the records read before it are sent and accounted, then the error is reported
      if (error instanceof InputError) return error;
      // the reader itself broke (the CSV worker died): the file is fine, the run stops, --resume goes on
      if (error instanceof ReaderFailure) this.parts.stop.readerFailed(error.message);
      else this.parts.stop.fatal(error);
    } finally {
      // A pending next() on an async generator would make return() wait for it; don't block the stop on stdin.
      if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
    return undefined;
  }

  /** True when the input ended (not --limit, not a stop). */
  async #readChunks(
    iterator: AsyncIterator<readonly unknown[]>,
    toCandidate: (record: unknown) => Candidate,
  ): Promise<boolean> {
    const { ledger, stop, flow } = this.parts;
    const { duplicates } = this.options;
    const memberIdOf = this.options.chunks?.memberIdOf;
    const rowLimit = this.options.limit ?? Infinity;
    while (!stop.stopping && ledger.rows < rowLimit) {
      // No race against the stop here: a race per read would pile reactions onto one pending promise. The
      // caller closes the source on stop (importFile does), which ends a read that is waiting on stdin.
      const next = await iterator.next();
      if (stop.stopping) return false;
      if (next.done) return true;
      const chunk = next.value;
      for (let i = 0; i < chunk.length; i++) {
        if (isEncoded(chunk[i] as SourceRecord)) {
          const taking = this.#takeEncoded(chunk[i] as EncodedRecord);
          if (taking) await taking;
          if ((ledger.rows & 511) === 0) this.parts.tick();
          if (flow.full) await flow.waitForRoom();
          if (stop.stopping || ledger.rows >= rowLimit) return false;
          continue;
        }
        // a CSV row --pad-short-rows completed (SourceRecord.padded), counted for the summary
        const padded = (chunk[i] as { padded?: true }).padded === true;
        if (this.#hooks.beforeMap?.(chunk[i]) === 'unchanged') {
          // unchanged since the last run, yet a later row of a memberId with other content all the same
          const record = chunk[i] as SourceRecord;
          const firstLine = duplicates?.observe(record, memberIdOf?.(record)) ?? 0;
          ledger.read(padded);
          if (firstLine === 0) ledger.unchanged();
          else await this.#take(refused(toCandidate(record), firstLine));
        } else {
          let candidate = toCandidate(chunk[i]);
          if (this.#hooks.select && !this.#hooks.select(candidate)) continue;
          ledger.read(padded);
          if (duplicates) candidate = duplicates.check(chunk[i] as SourceRecord, candidate);
          const taking = this.#take(candidate);
          if (taking) await taking;
        }
        if ((ledger.rows & 511) === 0) this.parts.tick();
        if (flow.full) await flow.waitForRoom();
        if (stop.stopping || ledger.rows >= rowLimit) return false;
      }
    }
    return false;
  }

  /**
   * One record read. Synchronous unless a hook or the rejects file makes it wait: a promise per record would
   * cost more than the batching itself.
   */
  #take(candidate: Candidate): Promise<void> | void {
    if (!candidate.valid)
      return this.parts.ledger.invalid(candidate, candidate.issues, issuesToReason(candidate.issues));
    if (candidate.omitted) this.options.omitted?.add(candidate);
    const json = JSON.stringify(candidate.item);
    const { beforeSend } = this.#hooks;
    if (!beforeSend) return this.#send(candidate, json);
    const decided = beforeSend(candidate, json);
    return decided instanceof Promise
      ? decided.then((decision) => this.#apply(candidate, json, decision))
      : this.#apply(candidate, json, decided);
  }

  #apply(candidate: Candidate & { valid: true }, json: string, decision: PreSendDecision): Promise<void> | void {
    if (decision === 'send') return this.#send(candidate, json);
    if (decision === 'unchanged') return this.parts.ledger.unchanged();
    return this.parts.ledger.settledEarlier(
      { ...candidate, memberId: candidate.item.memberId },
      decision.outcome,
      decision.reason,
    );
  }

  /**
   * A row the CSV worker mapped, checked and serialised (row-encoder.ts): what #take and #send do with a valid
   * candidate, with the worker's hashes for the duplicate check and its JSON bytes, pointed into where they came.
   */
  #takeEncoded(encoded: EncodedRecord): Promise<void> | void {
    const { order, batcher, dispatcher, ledger } = this.parts;
    const { record, line, memberId } = encoded;
    ledger.read(false);
    const firstLine = encoded.hashed
      ? (this.options.duplicates?.observeHashed(memberId, encoded.idLow, encoded.idHigh, encoded.content, line) ?? 0)
      : 0;
    if (firstLine !== 0) {
      // --duplicates refuse: invalid, as duplicates.check makes it (refused reads no more of a valid candidate)
      const item = { memberId } as MemberUpsertItem;
      return this.#take(refused({ record, line, raw: undefined, memberId, valid: true, item }, firstLine));
    }
    const pending: PendingRecord = { record, line, memberId, slab: NO_BYTES, at: 0, bytes: 0, raw: undefined };
    const admission = order.admit(pending);
    if (admission.kind === 'go') {
      // the chunk's slab, as the worker filled it: no copy (held records alike keep it until they settle)
      pending.slab = encoded.slab;
      pending.at = encoded.at;
      pending.bytes = encoded.bytes;
      for (const batch of batcher.add(pending)) dispatcher.enqueue(batch);
    } else if (admission.kind === 'held') {
      // a held row may wait for minutes: a copy of its own rather than its chunk's slab
      pending.bytes = encoded.bytes;
      pending.slab = Buffer.allocUnsafeSlow(encoded.bytes);
      encoded.slab.copy(pending.slab, 0, encoded.at, encoded.at + encoded.bytes);
    } else {
      return ledger.failedWithEarlier(pending, admission.earlier);
    }
  }

  #send(candidate: Candidate & { valid: true }, json: string): Promise<void> | void {
    const { order, batcher, dispatcher, ledger } = this.parts;
    const record: PendingRecord = {
      record: candidate.record,
      line: candidate.line,
      memberId: candidate.item.memberId,
      slab: NO_BYTES,
      at: 0,
      bytes: 0,
      raw: this.#keepRaw ? candidate.raw : undefined,
    };
    const admission = order.admit(record);
    if (admission.kind === 'go') {
      this.#slabs.put(json, record);
      for (const batch of batcher.add(record)) dispatcher.enqueue(batch);
    } else if (admission.kind === 'held') {
      ownBytes(json, record);
    } else {
      return ledger.failedWithEarlier(record, admission.earlier);
    }
  }
}
