/**
 * validate: the whole local half of an import, no network. Streams every record through read → map → validate,
 * writes --output / --rejects as it goes, and keeps only counts, reasons and a bounded sample in memory.
 */
import type { ResultCategory } from '../errors.js';
import type { InputFormat } from '../io/source.js';
import { checkOutputPaths } from '../io/output-file.js';
import { openItemsWriter, type ItemsWriter } from '../io/items-writer.js';
import { openRejectsWriter, type RejectsWriter } from '../io/rejects-writer.js';
import { issuesToReason, type RecordIssue } from './candidate.js';
import { readCandidates, type CandidateOptions } from './read-candidates.js';
import { ReasonCounter, type ReasonCount } from './reason-counter.js';

export interface ValidateOptions extends CandidateOptions {
  /** --output: write the valid items, as import would send them, one per line. */
  outputPath?: string;
  /** --rejects: .ndjson/.jsonl or .csv. */
  rejectsPath?: string;
  /** How many invalid records to keep for the summary (all of them go to onInvalid and --rejects). Default 20. */
  sampleSize?: number;
}

export interface InvalidRecord {
  record: number;
  line: number;
  memberId?: string;
  issues: RecordIssue[];
}

export interface ValidateEvents {
  onStart?(info: { file: string; format: InputFormat; totalBytes?: number }): void;
  onWarning?(message: string): void;
  /** Every invalid record, as found. Return a promise to make the run wait (e.g. for stdout to drain). */
  onInvalid?(invalid: InvalidRecord): void | Promise<void>;
  /** Called every few thousand records, at the end, and when reading fails midway (the counts so far). */
  onProgress?(progress: ValidateProgressInfo): void;
}

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
  rejects?: { path: string; format: 'ndjson' | 'csv'; records: number };
  durationMs: number;
}

const PROGRESS_EVERY = 5000;

/** Any invalid record makes the run partial: the file needs fixing before it imports whole. */
export function validateCategory(stats: ValidateStats): ResultCategory {
  return stats.invalid > 0 ? 'partial' : 'ok';
}

export async function runValidate(options: ValidateOptions, events: ValidateEvents = {}): Promise<ValidateStats> {
  const started = performance.now();
  // before the input is opened: an --output or --rejects that is the input would destroy it
  const named = (flag: string, path: string | undefined) => (path ? { flag, path } : undefined);
  await checkOutputPaths([options.path], [named('--output', options.outputPath), named('--rejects', options.rejectsPath)]);
  const stream = await readCandidates(options);
  const { source } = stream;
  let output: ItemsWriter | undefined;
  let rejects: RejectsWriter | undefined;
  try {
    if (options.outputPath) output = await openItemsWriter(options.outputPath);
    if (options.rejectsPath) {
      rejects = await openRejectsWriter(options.rejectsPath, { headers: source.headers, delimiter: source.delimiter, encoding: source.encoding });
    }
  } catch (error) {
    await Promise.allSettled([stream.close(), output?.close()]);
    throw error;
  }
  for (const warning of stream.warnings) events.onWarning?.(warning);
  events.onStart?.({ file: source.file, format: source.format, totalBytes: source.totalBytes });

  const sampleSize = options.sampleSize ?? 20;
  const sample: InvalidRecord[] = [];
  const reasons = new ReasonCounter();
  let rows = 0;
  let valid = 0;
  const progress = (): ValidateProgressInfo => ({ rows, valid, bytesRead: source.bytesRead(), totalBytes: source.totalBytes });
  try {
    // batch by batch: without --output, a valid record (nearly all of them) costs no promise at all
    for await (const batch of stream.batches) {
      for (let i = 0; i < batch.length; i++) {
        const candidate = stream.toCandidate(batch[i]!);
        rows++;
        if (candidate.valid) {
          valid++;
          if (output) await output.write(candidate.item);
        } else {
          const invalid: InvalidRecord = { record: candidate.record, line: candidate.line, memberId: candidate.memberId, issues: candidate.issues };
          reasons.addIssues(candidate.issues);
          if (sample.length < sampleSize) sample.push(invalid);
          if (rejects) {
            const entry = { ...invalid, stage: 'invalid' as const, reason: issuesToReason(candidate.issues), input: candidate.raw };
            await rejects.write(entry);
          }
          await events.onInvalid?.(invalid);
        }
        if (rows % PROGRESS_EVERY === 0) events.onProgress?.(progress());
      }
    }
  } catch (error) {
    // what was written so far is flushed and the files closed; the reading error is the one to report
    await Promise.allSettled([output?.close(), rejects?.close(), stream.close()]);
    events.onProgress?.(progress());
    throw error;
  }
  await Promise.all([output?.close(), rejects?.close(), stream.close()]);
  events.onProgress?.(progress());
  if (rows === 0) {
    events.onWarning?.(`${source.file}${source.headers ? ' line 1: a header and no records' : ': no records'}: nothing to validate`);
  }
  return {
    file: source.file,
    format: source.format,
    rows,
    valid,
    invalid: rows - valid,
    reasons: reasons.top(10),
    sample,
    output: options.outputPath ? { path: options.outputPath, items: valid } : undefined,
    rejects: rejects && options.rejectsPath ? { path: options.rejectsPath, format: rejects.format, records: rows - valid } : undefined,
    durationMs: Math.round(performance.now() - started),
  };
}
