/**
 * validate: the whole local half of an import, no network. Streams every record through read → map → validate,
 * writes --output / --rejects as it goes, and keeps only counts, reasons and a bounded sample in memory.
 */
import { MemberctlError, type ResultCategory } from '../../errors.js';
import type { InputFormat } from '../../io/source.js';
import { checkOutputPaths } from '../../io/output-paths.js';
import { openItemsWriter, type ItemsWriter } from '../../io/items-writer.js';
import { openRejectsWriter, type RejectsWriter } from '../../io/rejects-writer.js';
import { issuesToReason, type Candidate, type RecordIssue } from '../candidate.js';
import {
  readCandidates,
  unterminatedWarning,
  type CandidateOptions,
  type CandidateStream,
} from '../read-candidates.js';
import { ReasonCounter, TOP_REASONS, type ReasonCount } from '../reason-counter.js';
import { ItemsProfiler, type ItemsProfile } from './field-profile.js';
import type { DuplicateMembersReport } from '../duplicates/duplicate-members.js';
import { OmittedCells, type OmittedCellsReport } from '../omitted-cells.js';
import { shortened } from '../mapping/quote-cell.js';

export interface ValidateOptions extends CandidateOptions {
  /** --output: write the valid items, as import would send them, one per line. */
  outputPath?: string;
  /** --rejects: .ndjson/.jsonl or .csv. */
  rejectsPath?: string;
  /** --force: replace --output and --rejects files even when they are not the ones memberctl last wrote there. */
  force?: boolean;
  /** How many invalid records to keep for the summary (all of them go to onInvalid and --rejects). Default 20. */
  sampleSize?: number;
  /** --stats: tally what the valid items carry, field by field (see field-profile.ts). */
  profile?: boolean;
  /** Ctrl-C / SIGTERM: the run stops after the batch in hand, and --output and --rejects stay as they were. */
  signal?: AbortSignal;
}

export interface InvalidRecord {
  record: number;
  line: number;
  memberId?: string;
  issues: RecordIssue[];
}

/**
 * What validate reports as it runs, one way (as import does): the input opened, a warning, each invalid record as
 * found, and progress every few thousand records, at the end, and when reading fails midway (the counts so far).
 * A listener may return a promise for an invalid record to make the run wait (e.g. for stdout to drain).
 */
export type ValidateEvent =
  | { type: 'started'; file: string; format: InputFormat; totalBytes?: number }
  | { type: 'warning'; message: string }
  | { type: 'invalid'; invalid: InvalidRecord }
  | { type: 'progress'; progress: ValidateProgressInfo };

export type ValidateListener = (event: ValidateEvent) => void | Promise<void>;

export interface ValidateProgressInfo {
  rows: number;
  valid: number;
  bytesRead: number;
  totalBytes?: number;
}

export interface ValidateStats {
  file: string;
  format: InputFormat;
  rows: number;
  valid: number;
  invalid: number;
  /** Most common reasons, by field and rule, most frequent first. */
  reasons: ReasonCount[];
  /** The first invalid records (up to sampleSize). */
  sample: InvalidRecord[];
  output?: { path: string; items: number };
  /** memberIds on more than one row (issue 24 item 4), and what --duplicates did with them. */
  duplicateMembers: DuplicateMembersReport;
  /** The cells "onInvalid": "omit" left out of valid records, by field (issue 24 item 5). */
  omittedCells: OmittedCellsReport;
  rejects?: { path: string; format: 'ndjson' | 'csv'; records: number };
  /** With --stats: the valid items, field by field. */
  profile?: ItemsProfile;
  /** --pad-short-rows: the rows read with their missing trailing cells as empty (set only with the flag). */
  paddedRows?: number;
  durationMs: number;
}

const PROGRESS_EVERY = 5000;

/** Any invalid record makes the run partial: the file needs fixing before it imports whole. */
export function validateCategory(stats: ValidateStats): ResultCategory {
  return stats.invalid > 0 ? 'partial' : 'ok';
}

/** The validate use case's one entry point: open the input and the outputs, check every record, close, report. */
export async function validateFile(
  options: ValidateOptions,
  onEvent: ValidateListener = () => undefined,
): Promise<ValidateStats> {
  const started = performance.now();
  // before the input is opened: an --output or --rejects that is the input would destroy it
  const named = (flag: string, path: string | undefined) => (path ? { flag, path, ownOnly: true } : undefined);
  await checkOutputPaths(
    [options.path],
    [named('--output', options.outputPath), named('--rejects', options.rejectsPath)],
    { force: options.force },
  );
  const stream = await readCandidates(options);
  const { source } = stream;
  const outputs = await openOutputs(options, stream);
  for (const message of stream.warnings) void onEvent({ type: 'warning', message });
  void onEvent({ type: 'started', file: source.file, format: source.format, totalBytes: source.totalBytes });
  const profiler = options.profile ? new ItemsProfiler() : undefined;
  const { duplicates } = stream;
  const check = new Checker(options.sampleSize ?? 20, outputs, onEvent, profiler, stream.omitted);
  const progress = () =>
    void onEvent({
      type: 'progress',
      progress: { rows: check.rows, valid: check.valid, bytesRead: source.bytesRead(), totalBytes: source.totalBytes },
    });
  try {
    // batch by batch: without --output, a valid record (nearly all of them) costs no promise at all
    const batches = stream.batches[Symbol.asyncIterator]();
    for (;;) {
      // a stop is answered at once, also while the input sends nothing more (a pipe left open)
      const next = await nextUnlessStopped(batches, options.signal);
      if (next === STOPPED) throw interrupted(source.file, check.rows);
      if (next.done) break;
      const batch = next.value;
      for (let i = 0; i < batch.length; i++) {
        const record = batch[i]!;
        if (record.padded) check.padded++;
        const checking = check.record(duplicates.check(record, stream.toCandidate(record)));
        if (checking) await checking;
        if (check.rows % PROGRESS_EVERY === 0) progress();
      }
    }
    await stream.close();
  } catch (error) {
    // the input broke midway (or an output failed): --output and --rejects hold the records before that point
    // only, so neither is put in place and the files from before stay as they were (docs/safety.md#outputs)
    await Promise.allSettled([outputs.output?.abort(), outputs.rejects?.abort(), stream.close()]);
    progress();
    throw error;
  }
  await Promise.all([outputs.output?.close(), outputs.rejects?.close()]);
  progress();
  const notUtf8 = stream.notUtf8Warning();
  if (notUtf8) void onEvent({ type: 'warning', message: notUtf8 });
  if (check.rows === 0)
    void onEvent({
      type: 'warning',
      message: `${source.file}${source.headers ? ' line 1: a header and no records' : ': no records'}: nothing to validate`,
    });
  if (stream.end.unterminated)
    void onEvent({ type: 'warning', message: unterminatedWarning(source.file, stream.end.line!) });
  return {
    ...check.stats(source, options, performance.now() - started),
    duplicateMembers: duplicates.report(),
    omittedCells: stream.omitted.report(),
  };
}

const STOPPED = Symbol('stopped');

/** The next batch, or STOPPED as soon as `signal` fires (the pending read is left to the input's close). */
async function nextUnlessStopped<T>(
  batches: AsyncIterator<T>,
  signal: AbortSignal | undefined,
): Promise<IteratorResult<T> | typeof STOPPED> {
  if (!signal) return batches.next();
  if (signal.aborted) return STOPPED;
  let onAbort = () => undefined as void;
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    onAbort = () => resolve(STOPPED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const next = batches.next();
  next.catch(() => undefined); // once stopped, a read that then fails (the input closing) is not this run's error
  try {
    return await Promise.race([next, stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function interrupted(file: string, rows: number): MemberctlError {
  return new MemberctlError(
    'interrupted',
    `interrupted after ${rows.toLocaleString('en-US')} records of ${file}: the run stopped, nothing was written`,
    'cancelled',
    { hint: 'Run it again to validate the whole file.' },
  );
}

interface Outputs {
  output?: ItemsWriter;
  rejects?: RejectsWriter;
}

async function openOutputs(options: ValidateOptions, stream: CandidateStream): Promise<Outputs> {
  const { source } = stream;
  let output: ItemsWriter | undefined;
  try {
    if (options.outputPath) output = await openItemsWriter(options.outputPath, options.force);
    if (!options.rejectsPath) return { output };
    const rejects = await openRejectsWriter(options.rejectsPath, {
      headers: source.headers,
      delimiter: source.delimiter,
      encoding: source.encoding,
      force: options.force,
    });
    return { output, rejects };
  } catch (error) {
    // nothing was validated: an --output from before stays as it was, not replaced by an empty file
    await Promise.allSettled([stream.close(), output?.abort()]);
    throw error;
  }
}

/** The counts, the reasons and the bounded sample; each record checked writes --output / --rejects as it goes. */
class Checker {
  rows = 0;
  valid = 0;
  /** Rows --pad-short-rows completed. */
  padded = 0;
  readonly #sample: InvalidRecord[] = [];
  readonly #reasons = new ReasonCounter();

  constructor(
    private readonly sampleSize: number,
    private readonly outputs: Outputs,
    private readonly onEvent: ValidateListener,
    private readonly profiler?: ItemsProfiler,
    private readonly omitted?: OmittedCells,
  ) {}

  /** Synchronous for a valid record without --output: a promise per record would cost more than the check. */
  record(candidate: Candidate): Promise<void> | void {
    this.rows++;
    if (candidate.valid) {
      this.valid++;
      if (candidate.omitted) this.omitted?.add(candidate);
      this.profiler?.add(candidate.item);
      return this.outputs.output?.write(candidate.item);
    }
    return this.#invalid(candidate);
  }

  async #invalid(candidate: Candidate & { valid: false }): Promise<void> {
    const invalid: InvalidRecord = {
      record: candidate.record,
      line: candidate.line,
      memberId: candidate.memberId === undefined ? undefined : shortened(candidate.memberId),
      issues: candidate.issues,
    };
    this.#reasons.addIssues(candidate.issues);
    if (this.#sample.length < this.sampleSize) this.#sample.push(invalid);
    await this.outputs.rejects?.write({
      ...invalid,
      stage: 'invalid',
      reason: issuesToReason(candidate.issues),
      input: candidate.raw,
    });
    await this.onEvent({ type: 'invalid', invalid });
  }

  stats(
    source: { file: string; format: InputFormat },
    options: ValidateOptions,
    durationMs: number,
  ): Omit<ValidateStats, 'duplicateMembers' | 'omittedCells'> {
    const { rows, valid } = this;
    const rejects = this.outputs.rejects;
    return {
      file: source.file,
      format: source.format,
      rows,
      valid,
      invalid: rows - valid,
      reasons: this.#reasons.top(TOP_REASONS),
      sample: this.#sample,
      output: options.outputPath ? { path: options.outputPath, items: valid } : undefined,
      rejects:
        rejects && options.rejectsPath
          ? { path: options.rejectsPath, format: rejects.format, records: rows - valid }
          : undefined,
      profile: this.profiler?.result(),
      paddedRows: options.padShortRows ? this.padded : undefined,
      durationMs: Math.round(durationMs),
    };
  }
}
