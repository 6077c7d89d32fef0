/**
 * The local half of the pipeline, in one place: open the input, resolve its columns once, and turn every
 * record into a candidate, in input order. validate reports these; import sends the valid ones.
 */
import { openRecordSource } from '../io/open-source.js';
import type { RecordSource, SourceOptions, SourceRecord } from '../io/source.js';
import type { Candidate } from './candidate.js';
import { createRecordMapper, loadMappingFile, type SourceKey } from './mapping/index.js';

export interface CandidateOptions extends SourceOptions {
  /** --map: a mapping file for CSV headers. */
  mapFile?: string;
  ignoreUnknownColumns?: boolean;
  /** --null-token: a CSV cell equal to this is JSON null. */
  nullToken?: string;
  /** --limit: read only the first N records. */
  limit?: number;
}

export interface CandidateStream {
  /** The open input: file name, format, headers, bytes read (for progress). */
  source: RecordSource;
  /** Worth telling the user before the run: ignored columns, unused --map rules. */
  warnings: string[];
  /** One candidate per record read, in input order; ends at the input's end or at --limit. */
  candidates: AsyncIterable<Candidate>;
  /**
   * The same records before mapping, as read chunk by chunk (cut at --limit), each to pass to `toCandidate`:
   * one promise per chunk instead of two per record. Iterate this or `candidates`, not both.
   */
  batches: AsyncIterable<SourceRecord[]>;
  toCandidate(record: SourceRecord): Candidate;
  /** CSV only: a record's memberId and source key, without mapping it (--changed-only's first comparison). */
  sourceKey?(record: SourceRecord): SourceKey | undefined;
  /** Stops reading early (Ctrl-C); safe to call twice. */
  close(): Promise<void>;
}

export async function readCandidates(options: CandidateOptions): Promise<CandidateStream> {
  // the mapping file is checked first: a typo in it should not wait for a large file to open
  const mapping = options.mapFile ? await loadMappingFile(options.mapFile) : undefined;
  const source = await openRecordSource(options);
  let mapper;
  try {
    mapper = createRecordMapper(source.format, source.headers, {
      file: source.file,
      mapping,
      ignoreUnknownColumns: options.ignoreUnknownColumns,
      nullToken: options.nullToken,
    });
  } catch (error) {
    await source.close();
    throw error;
  }
  const limit = options.limit ?? Infinity;
  const { toCandidate, sourceKey } = mapper;

  async function* upToLimit(): AsyncGenerator<SourceRecord[]> {
    let left = limit;
    try {
      if (left <= 0) return;
      for await (const batch of source.batches()) {
        if (batch.length >= left) {
          yield batch.length === left ? batch : batch.slice(0, left);
          return;
        }
        left -= batch.length;
        yield batch;
      }
    } finally {
      await source.close();
    }
  }
  const batches = upToLimit();

  async function* candidates(): AsyncGenerator<Candidate> {
    for await (const batch of batches) {
      for (let i = 0; i < batch.length; i++) yield toCandidate(batch[i]!);
    }
  }

  return { source, warnings: mapper.warnings, candidates: candidates(), batches, toCandidate, sourceKey, close: () => source.close() };
}
