/**
 * The import pipeline's contracts: what it needs (a transport, candidates, options, hooks) and what it returns
 * (a summary whose buckets always add up to the rows read). No I/O here.
 */
import type { InputError } from '../../errors.js';
import type { Candidate } from '../candidate.js';
import type { SourceRecord } from '../../io/source.js';
import type { ImportResponse } from '../../http/member-api.js';
import type { AttemptObserver } from './concurrency-limit.js';
import type { ImportEvent } from './events.js';
import type { DuplicateMembers, DuplicateMembersReport } from '../duplicates/duplicate-members.js';
import type { OmittedCells, OmittedCellsReport } from '../omitted-cells.js';

export type { ImportResponse, FailureCause } from '../../http/member-api.js';

/**
 * What the pipeline needs from the HTTP adapter (src/http/member-api.ts's MemberApiClient fits it). Retries
 * (429 pause, Retry-After, backoff on 5xx and network errors) happen inside `postImport`; what comes back is final.
 */
export interface ImportTransport {
  /**
   * `body` is the JSON array as UTF-8; the signal aborts the request (and its retries). `onAttempt` should hear
   * every attempt (retries included) leave and end: the adaptive concurrency limit is sized by them. `items` is the
   * number of records in `body` (the largest import result accepted is sized by it).
   */
  postImport(
    body: Uint8Array,
    signal?: AbortSignal,
    onAttempt?: AttemptObserver,
    items?: number,
  ): Promise<ImportResponse>;
  readonly stats: { requests: number; retries: number };
  /**
   * Ends requests already on the wire now. Aborting `signal` only stops retries and waits; this is for when
   * waiting is over (grace period spent, second Ctrl-C).
   */
  destroy?(): Promise<void>;
  /**
   * A graceful stop: requests waiting (a Retry-After pause, a backoff) end now as not sent and none retries; those
   * on the wire are left to be answered. Without it, a stop waits out the pause or the grace period.
   */
  stopWaiting?(): void;
}

/** Where a record ended. `confirmed`: the server counted it as imported or updated (it does not say which). */
export type SentOutcome = 'confirmed' | 'skipped' | 'rejected' | 'failed';
export type Stage = 'invalid' | 'skipped' | 'rejected' | 'failed';

/** A record the server settled for good: what a journal or a sync state stores. */
export interface SettledRecord {
  record: number;
  line: number;
  memberId: string;
  outcome: Exclude<SentOutcome, 'failed'>;
  /** The server's reason (skipped) or message (rejected). */
  reason?: string;
  /** The exact JSON text sent for this record (hash it for --changed-only). */
  json: string;
}

/** One server response accounted: records in record order, and the server's counts for the confirmed ones. */
export interface SettledBatch {
  firstRecord: number;
  lastRecord: number;
  importedCount: number;
  updatedCount: number;
  records: SettledRecord[];
}

/**
 * What the pre-send hook decides for one valid candidate:
 * - `send`: batch it (the default without hooks);
 * - `unchanged`: same item as last confirmed (--changed-only): counted `unchanged`, not sent;
 * - `done`: settled by an earlier run (--resume): counted in `outcome`'s bucket, not sent. A journal knows a
 *   batch's imported/updated counts, not each record's: it may apportion them (first N records "imported").
 */
export type PreSendDecision =
  | 'send'
  | 'unchanged'
  | { kind: 'done'; outcome: 'imported' | 'updated' | 'skipped' | 'rejected'; reason?: string };

export interface ImportHooks {
  /**
   * Called for every candidate read, valid or not, before anything else. false: this record is not this run's
   * business (--shard: another process's member) and is not counted at all, not even as a row.
   */
  select?(candidate: Candidate): boolean;
  /**
   * Called first for every record read, before it is mapped, with the record as the source gave it. 'unchanged':
   * the record is counted (a row, unchanged) and goes no further: neither mapped, nor validated, nor selected
   * (the hook answers so only for records of this run's shard). The --changed-only shortcut for CSV rows.
   */
  beforeMap?(record: unknown): 'unchanged' | undefined;
  /** Called per valid, selected candidate, in input order, with the JSON text that would be sent. */
  beforeSend?(candidate: Candidate & { valid: true }, json: string): PreSendDecision | Promise<PreSendDecision>;
  /**
   * Called once per response as it is accounted, in completion order, and not awaited (a journal appends and
   * fsyncs here, a sync state stores item hashes here): what a hook may rely on, and why that keeps a resume
   * exact, is the journal-ordering rule in ledger.ts. Records that end `failed` are never passed: they are to be
   * sent again. A throw stops the run (exit 1).
   */
  onSettled?(batch: SettledBatch): Promise<void> | void;
}

/** A place for records not imported or updated (src/io/rejects-writer.ts fits it). */
export interface RejectsSink {
  write(entry: {
    record: number;
    line: number;
    memberId?: string;
    stage: Stage;
    reason: string;
    input: unknown;
  }): Promise<void> | void;
}

/**
 * The input as the readers hand it out, one array per chunk read (readCandidates' CandidateStream fits it): one
 * promise per chunk instead of one per record, each record mapped only when the pipeline takes it.
 */
export interface CandidateChunks {
  batches: AsyncIterable<readonly SourceRecord[]>;
  toCandidate(record: SourceRecord): Candidate;
  /** CSV: a record's memberId without mapping it, for a row the `beforeMap` hook settles (see `duplicates`). */
  memberIdOf?(record: SourceRecord): string | undefined;
  /**
   * CSV parsed in a worker, whose mapping allows: from now on the worker maps, checks and serialises the rows it
   * finds plainly valid and hands them over as EncodedRecords (row-encoder.ts). The pipeline asks for it only when
   * nothing of the run needs such a row's cells (no hook reading rows, no rejects file).
   */
  encodeAhead?(): boolean;
}

export interface ImportOptions {
  /**
   * The input, read once, in order: `chunks` (what the CLI passes), or `candidates` one by one. Exactly one of
   * them. On a stop the caller should close the source so a read waiting on stdin ends.
   */
  candidates?: AsyncIterable<Candidate>;
  chunks?: CandidateChunks;
  transport: ImportTransport;
  /** Items per request (default 500). Lowered for the rest of the run after a 413. */
  batchSize?: number;
  /** Bytes of JSON per request (default 1 MiB). A single larger item is sent alone. */
  maxBatchBytes?: number;
  /** Requests in flight at once, fixed. Without it the number adapts to the server (concurrency-limit.ts). */
  concurrency?: number;
  /** The most requests in flight the adaptive limit may reach (default 32); ignored with `concurrency`. */
  maxConcurrency?: number;
  /** Count only the first N records (invalid ones included); stop reading after them. */
  limit?: number;
  /** Later rows held back while an earlier row of the same member is in flight, over all members (default 10,000). */
  maxHeldRows?: number;
  /**
   * Bytes of closed batches not sent and of requests whose response is not handled yet at which the reader pauses
   * (default 3 MiB: defaults.ts). A larger batch on its own still goes.
   */
  windowBytes?: number;
  /** Stop gracefully: read no more, let requests in flight settle for `graceMs`, count the rest failed. */
  stopSignal?: AbortSignal;
  /** Stop at once: abort requests in flight (second Ctrl-C). */
  abortSignal?: AbortSignal;
  /** An output (rejects, journal, state) cannot be written: stop like a Ctrl-C; its reason is the OutputFailure. */
  outputFailedSignal?: AbortSignal;
  /** How long requests in flight may take to settle after a graceful stop (default 10 s). */
  graceMs?: number;
  rejects?: RejectsSink;
  hooks?: ImportHooks;
  /**
   * The duplicate memberId check (--duplicates): every record this run counts meets it in input order, after
   * `select` and before `beforeSend`, and one `beforeMap` settles too (so --resume and --changed-only reach a
   * whole run's verdicts). Under `refuse` it makes a later row of a memberId with other content invalid.
   */
  duplicates?: DuplicateMembers;
  /** Counts the cells "onInvalid": "omit" left out of each valid record taken. */
  omitted?: OmittedCells;
  onEvent?: (event: ImportEvent) => void;
  /** Reader progress for ETA: bytes read so far and the input's size (when known). */
  bytesRead?: () => number;
  totalBytes?: number;
}

export type StopReason =
  | 'interrupted'
  | 'aborted'
  | 'credentials'
  | 'unreachable'
  | 'output'
  | 'server-wait'
  | 'reader';

/** The server asked for a pause longer than the run may wait (Retry-After over --max-retry-after): the run stopped. */
export interface ServerWait {
  /** The wait asked for, from the answer's arrival. */
  retryAfterMs: number;
  /** The longest wait this run honours. */
  maxRetryAfterMs: number;
  /** The status that asked (429 or 503...). */
  status?: number;
}

import type { ReasonCount } from '../reason-counter.js';
import type { OutputFailure } from '../../io/output-failure.js';

export type { ReasonCount };

export interface SkippedExample {
  memberId: string | null;
  reason: string | null;
  record: number | null;
  line: number | null;
}

export const SKIPPED_EXAMPLES = 10;

export interface ImportSummary {
  rows: number;
  invalid: number;
  unchanged: number;
  importedCount: number;
  updatedCount: number;
  /** Records the server answered as skipped. */
  skipped: number;
  /**
   * The first SKIPPED_EXAMPLES of them with the server's reason, in the order answered: a count, not a list, so a
   * server that skips a million records costs no memory (the rejects file holds every one).
   */
  skippedExamples: SkippedExample[];
  rejected: number;
  failed: number;
  /** Batches formed from the input (a bisected or split batch counts once). */
  batches: number;
  /** HTTP requests, retries and bisect halves included. */
  requests: number;
  retries: number;
  durationMs: number;
  /** CSV rows --pad-short-rows read with their missing trailing cells as empty (each also in one bucket above). */
  paddedRows: number;
  /** Most common reasons per stage, most frequent first (at most 5 each). */
  topReasons: { invalid: ReasonCount[]; skipped: ReasonCount[]; rejected: ReasonCount[]; failed: ReasonCount[] };
  /** memberIds on more than one row, and what --duplicates did (with `ImportOptions.duplicates`). */
  duplicateMembers?: DuplicateMembersReport;
  /** The cells "onInvalid": "omit" left out, by field (set by importFile). */
  omittedCells?: OmittedCellsReport;
  /** Set when the run ended early. */
  stopReason?: StopReason;
  /** The server's message when credentials were refused (never the token). */
  stopMessage?: string;
  /** stopReason 'server-wait': how long the server asked to wait, and the limit it went over. */
  serverWait?: ServerWait;
  /** Batch size at the end of the run (lower than asked after a 413). */
  finalBatchSize: number;
  /** Requests allowed in flight at the end of the run, and the most allowed at any time (equal when fixed). */
  concurrency: { final: number; max: number };
  warnings: number;
  /** The input turned unreadable midway: what was read before it is accounted above; report this after (exit 2). */
  inputError?: InputError;
  /** An output could not be written (full disk, size limit): the run stopped there (stopReason 'output'). */
  outputError?: OutputFailure;
}
