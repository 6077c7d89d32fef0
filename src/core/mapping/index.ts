/**
 * From a source's records to candidates: a mapper chosen once per input (CSV header resolution happens here,
 * before any row is read), then one call per record. Reader errors become invalid candidates.
 */
import { UsageError } from '../../errors.js';
import type { Candidate } from '../candidate.js';
import type { InputFormat, SourceRecord } from '../../io/source.js';
import { buildCsvMapper, type CsvMapperOptions } from './csv-mapper.js';
import { buildJsonMapper, jsonToCandidate } from './json-mapper.js';

export { loadMappingFile, mappingFromText, type Mapping } from './mapping-file.js';
export { parseMapping } from './compile-mapping.js';
export { endsWithRejectsColumns } from './csv-columns.js';
export type { CsvMapperOptions } from './csv-mapper.js';

export interface RecordMapper {
  /** Messages worth a warning (ignored columns, unused --map rules). */
  warnings: string[];
  toCandidate(source: SourceRecord): Candidate;
  /** Candidates made so far from records that are not UTF-8 (for the one message about the file). */
  notUtf8Records(): number;
  /** CSV only: the record's memberId and source key (see CsvMapper.sourceKey); undefined for a row without either. */
  sourceKey?(source: SourceRecord): SourceKey | undefined;
  /** CSV only: the record's memberId as mapped, without mapping the rest (undefined for none or a blank one). */
  memberIdOf?(source: SourceRecord): string | undefined;
}

export interface SourceKey {
  memberId: string;
  key: string;
}

export function createRecordMapper(
  format: InputFormat,
  headers: readonly string[] | undefined,
  options: CsvMapperOptions,
): RecordMapper {
  let map: (source: SourceRecord) => Candidate;
  let memberIdOf: (raw: unknown) => string | undefined = () => undefined;
  let warnings: string[] = [];
  let sourceKey: RecordMapper['sourceKey'];
  let memberIdOfRecord: RecordMapper['memberIdOf'];
  // a workbook's rows are cells under a header, as a CSV file's
  if (format === 'csv' || format === 'xlsx') {
    const csv = buildCsvMapper(headers ?? [], options);
    map = csv.toCandidate;
    memberIdOf = (raw) => (Array.isArray(raw) ? csv.memberIdOf(raw) : undefined);
    sourceKey = (source) => {
      const memberId = source.error ? undefined : memberIdOf(source.raw);
      return memberId === undefined
        ? undefined
        : { memberId, key: csv.sourceKey(source.raw as unknown[], source.quotedNullTokens) };
    };
    memberIdOfRecord = (source) => memberIdOf(source.raw);
    warnings = csv.warnings;
  } else {
    for (const [flag, given] of [
      ['--ignore-unknown-columns', options.ignoreUnknownColumns],
      ['--null-token', options.nullToken],
      ['--empty-as-null', options.emptyAsNull],
    ] as const) {
      if (given !== undefined && given !== false) {
        throw new UsageError(`${flag} applies to CSV input only (${options.file} is ${format})`, {
          code: 'csv-only-option',
          hint: 'JSON and NDJSON records are taken as they are, or through --map mapping.json, whose keys are dotted paths into the record.',
        });
      }
    }
    map = options.mapping ? buildJsonMapper(options.mapping) : jsonToCandidate;
  }
  let notUtf8 = 0;
  return {
    warnings,
    sourceKey,
    memberIdOf: memberIdOfRecord,
    notUtf8Records: () => notUtf8,
    toCandidate(source) {
      if (source.error) {
        const { record, line, raw } = source;
        const message = source.error.hint ? `${source.error.message} — ${source.error.hint}` : source.error.message;
        // counted here, where a record becomes a candidate: a reader reads ahead of a run that stops early
        if (source.error.cause === 'invalid-utf8') notUtf8++;
        const rule = source.error.cause === 'invalid-utf8' ? 'not valid UTF-8' : 'unreadable record';
        // a refused JSON record's own memberId key names it only when no --map says where the memberId is
        const memberId = options.mapping ? memberIdOf(raw) : (source.memberId ?? memberIdOf(raw));
        return { record, line, raw, memberId, valid: false, issues: [{ path: '', message, rule }] };
      }
      return map(source);
    },
  };
}
