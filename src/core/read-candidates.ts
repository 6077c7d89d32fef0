/**
 * The local half of the pipeline, in one place: open the input, resolve its columns once, and turn every
 * record into a candidate, in input order. validate reports these; import sends the valid ones.
 */
import { openRecordSource } from '../io/open-source.js';
import type { RecordSource, SourceOptions, SourceRecord } from '../io/source.js';
import { invalidUtf8Warning } from '../io/record-limits.js';
import type { Candidate } from './candidate.js';
import { createRecordMapper, loadMappingFile, type Mapping, type SourceKey } from './mapping/index.js';
import { DuplicateMembers, type DuplicateRule } from './duplicates/duplicate-members.js';
import { OmittedCells } from './omitted-cells.js';
import { rowEncoderSpec, type RowEncoderOptions } from './import/row-encoder.js';

export interface CandidateOptions extends SourceOptions {
  /** --map: a mapping file for CSV headers. */
  mapFile?: string;
  ignoreUnknownColumns?: boolean;
  /** --null-token: an unquoted CSV cell equal to this is JSON null (a quoted one is text). */
  nullToken?: string;
  /** --limit: read only the first N records. */
  limit?: number;
  /** --empty-as-null: an empty CSV cell is JSON null (clears the field) instead of "not given". */
  emptyAsNull?: boolean;
  /**
   * Told about an input that ends oddly, once the end is read: a header and no records, or a last record with no
   * line break after it (an export cut short?). validate reports the former itself.
   */
  onEndWarning?: (message: string) => void;
  /**
   * An unterminated last record (see SourceRecord.unterminated) is invalid, not sent: --changed-only's choice,
   * where a cut value would overwrite a good one. (An unchanged one is still found unchanged before this.)
   */
  holdUnterminated?: boolean;
  /** --duplicates: a later row of a memberId with other content wins (the default) or is invalid. */
  duplicates?: DuplicateRule;
  /** With encodeAhead: every chunk is encoded, not only while the worker has time to spare (tests; RowEncoderSpec). */
  encodeEveryChunk?: boolean;
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
  /** CSV only: a record's memberId without mapping it (a row --changed-only settles unmapped still meets `duplicates`). */
  memberIdOf?(record: SourceRecord): string | undefined;
  /** CSV parsed in a worker, with a mapping the worker can run: see CandidateChunks.encodeAhead. */
  encodeAhead?(): boolean;
  /**
   * The duplicate memberId check of this input (--duplicates), for the caller to run on the records it takes (not
   * done by toCandidate: an import's --shard leaves out other shards' rows first).
   */
  duplicates: DuplicateMembers;
  /** The cells "onInvalid": "omit" left out, for the caller to count on the valid records it takes. */
  omitted: OmittedCells;
  /** Stops reading early (Ctrl-C); safe to call twice. */
  close(): Promise<void>;
  /**
   * Once the run has taken its records (at the input's end, --limit or a stop): the one warning about records that
   * are not UTF-8 (the first bad byte, how many were counted invalid, the flag that reads the file), if any were.
   */
  notUtf8Warning(): string | undefined;
  /** Once the input is read: whether its last record (starting on `line`) had no line break after it (a suspect end). */
  readonly end: { unterminated: boolean; line?: number };
}

export async function readCandidates(options: CandidateOptions): Promise<CandidateStream> {
  // the mapping file is checked first: a typo in it should not wait for a large file to open
  const mapping = options.mapFile ? await loadMappingFile(options.mapFile) : undefined;
  const source = await openRecordSource(options);
  let mapper;
  try {
    mapper = createRecordMapper(source.format, source.headers, {
      file: source.file,
      headerLine: source.headerLine,
      mapping,
      ignoreUnknownColumns: options.ignoreUnknownColumns,
      nullToken: options.nullToken,
      emptyAsNull: options.emptyAsNull,
    });
  } catch (error) {
    await source.close();
    throw error;
  }
  const limit = options.limit ?? Infinity;
  const { sourceKey, memberIdOf } = mapper;
  const toCandidate = options.holdUnterminated ? holdingUnterminated(mapper.toCandidate) : mapper.toCandidate;

  async function* upToLimit(): AsyncGenerator<SourceRecord[]> {
    let left = limit;
    let last: SourceRecord | undefined;
    try {
      if (left <= 0) return;
      for await (const batch of source.batches()) {
        last = batch[batch.length - 1];
        if (batch.length >= left) {
          yield batch.length === left ? batch : batch.slice(0, left);
          return;
        }
        left -= batch.length;
        yield batch;
      }
      endWarnings(last);
    } finally {
      await source.close();
    }
  }

  const end: CandidateStream['end'] = { unterminated: false };
  function endWarnings(last: SourceRecord | undefined): void {
    end.unterminated = last?.unterminated === true;
    end.line = last?.line;
    if (!options.onEndWarning) return;
    if (!last)
      options.onEndWarning(
        `${source.file}${source.headers ? ' line 1: a header and no records' : ': no records'}: nothing to import`,
      );
    else if (last.unterminated) {
      const held = options.holdUnterminated ? '; with --changed-only it is not sent unless unchanged' : '';
      options.onEndWarning(`${unterminatedWarning(source.file, last.line)}${held}`);
    }
  }
  const batches = upToLimit();

  async function* candidates(): AsyncGenerator<Candidate> {
    for await (const batch of batches) {
      for (let i = 0; i < batch.length; i++) yield toCandidate(batch[i]!);
    }
  }

  const notUtf8Warning = () => {
    const summary = source.invalidUtf8();
    const records = mapper.notUtf8Records();
    return summary && records > 0 ? invalidUtf8Warning(source.file, summary, records) : undefined;
  };
  const encoder = encodable(source, options, mapping)
    ? rowEncoderSpec(encoderOptions(source, options, mapping), options.encodeEveryChunk)
    : undefined;
  return {
    source,
    encodeAhead: encoder && (() => source.encodeRows?.(encoder) === true),
    warnings: mapper.warnings,
    candidates: candidates(),
    batches,
    toCandidate,
    sourceKey,
    memberIdOf,
    duplicates: new DuplicateMembers(options.duplicates),
    omitted: new OmittedCells(),
    close: () => source.close(),
    end,
    notUtf8Warning,
  };
}

/**
 * Whether the worker may map this file's rows (row-encoder.ts): a CSV parsed in a worker, with no option whose rows
 * the main thread must see as cells: a mapping with `fields` rules (they fill in after the columns, and zod checks
 * every item), --null-token (quoted cells), --pad-short-rows, --changed-only's held last row. Per row the worker
 * declines the rest (invalid ones, and those read with a problem).
 */
function encodable(source: RecordSource, options: CandidateOptions, mapping: Mapping | undefined): boolean {
  return (
    source.format === 'csv' &&
    source.encodeRows !== undefined &&
    (mapping === undefined || (mapping.text !== undefined && mapping.fields.length === 0)) &&
    options.nullToken === undefined &&
    options.padShortRows !== true &&
    options.holdUnterminated !== true
  );
}

function encoderOptions(
  source: RecordSource,
  options: CandidateOptions,
  mapping: Mapping | undefined,
): RowEncoderOptions {
  return {
    file: source.file,
    headerLine: source.headerLine,
    ignoreUnknownColumns: options.ignoreUnknownColumns,
    emptyAsNull: options.emptyAsNull,
    mapping: mapping?.text !== undefined ? { file: mapping.file, text: mapping.text } : undefined,
    hashes: (options.duplicates ?? 'last-wins') !== 'off',
  };
}

/** A file whose last record has no line break after it: what import and validate say about it. */
export function unterminatedWarning(file: string, line: number): string {
  return `${file} line ${line}: the file ends without a line break after the last record: was the export cut short? Its last value may be incomplete`;
}

function holdingUnterminated(toCandidate: (record: SourceRecord) => Candidate): (record: SourceRecord) => Candidate {
  return (record) => {
    if (!record.unterminated) return toCandidate(record);
    const { record: number, line, raw } = record;
    const message =
      'the file ends inside this record (no line break after it): it may be cut short, so --changed-only does not send it — end the export with a line break';
    return {
      record: number,
      line,
      raw,
      memberId: toCandidate(record).memberId,
      valid: false,
      issues: [{ path: '', message, rule: 'unterminated last record' }],
    };
  };
}
