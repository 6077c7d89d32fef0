/**
 * The local half of the pipeline, in one place: open the input, resolve its columns once, and turn every
 * record into a candidate, in input order. validate reports these; import sends the valid ones.
 */
import { openRecordSource } from '../io/open-source.js';
import type { RecordSource, SourceOptions } from '../io/source.js';
import type { Candidate } from './candidate.js';
import { createRecordMapper, loadMappingFile } from './mapping/index.js';

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
  const { toCandidate } = mapper;

  async function* candidates(): AsyncGenerator<Candidate> {
    let count = 0;
    try {
      if (count >= limit) return;
      for await (const record of source) {
        yield toCandidate(record);
        if (++count >= limit) break;
      }
    } finally {
      await source.close();
    }
  }

  return { source, warnings: mapper.warnings, candidates: candidates(), close: () => source.close() };
}
