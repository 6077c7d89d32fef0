/**
 * The import's row encoder, run by the CSV parsing worker (src/io/csv-worker.ts loads it by its module path, so src/io
 * imports no core code): the same mapping, check and JSON.stringify the main thread would run on a row, and the
 * same hashes the duplicate check would compute (member-hash.ts), done on the worker's core instead. A row that is
 * not plainly valid (invalid, or valid only with cells left out by "onInvalid": "omit") is declined and comes to
 * the main thread as its cells, which maps it as before. The main thread decides per file whether to hand this
 * over at all (read-candidates.ts `encodeAhead`; docs/decisions.md "The CSV worker maps, checks and serialises").
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { RowEncoder, RowEncoderSpec } from '../../io/source.js';
import { contentHash, idHash, idHashHigh } from '../duplicates/member-hash.js';
import { createRecordMapper, mappingFromText } from '../mapping/index.js';

/** Everything besides the header that decides a row's item and hashes (structured-cloned to the worker). */
export interface RowEncoderOptions {
  file: string;
  headerLine?: number;
  ignoreUnknownColumns?: boolean;
  emptyAsNull?: boolean;
  /** --map: the mapping file's text as the main thread read and checked it (Mapping.text), compiled again here. */
  mapping?: { file: string; text: string };
  /** The duplicate check runs (--duplicates other than off): compute its hashes. */
  hashes: boolean;
}

export function createRowEncoder(headers: string[], options: RowEncoderOptions): RowEncoder {
  const { file, headerLine, ignoreUnknownColumns, emptyAsNull, hashes } = options;
  const mapping = options.mapping && mappingFromText(options.mapping.text, options.mapping.file);
  const mapper = createRecordMapper('csv', headers, { file, headerLine, mapping, ignoreUnknownColumns, emptyAsNull });
  return (record, into) => {
    const candidate = mapper.toCandidate(record);
    if (!candidate.valid || candidate.omitted) return false;
    const { memberId } = candidate.item;
    into.json = JSON.stringify(candidate.item);
    into.memberId = memberId;
    // as DuplicateMembers.observe: a blank memberId is not checked
    into.hashed = hashes && memberId.trim() !== '';
    if (into.hashed) {
      into.idLow = idHash(memberId);
      into.idHigh = idHashHigh;
      into.content = contentHash(record.raw);
    }
    return true;
  };
}

/**
 * This module as the worker loads it: run from the sources (the test runner), the compiled one, as for the worker
 * itself (a worker thread cannot load TypeScript); undefined when that is not built.
 */
export function rowEncoderSpec(options: RowEncoderOptions, everyChunk = false): RowEncoderSpec | undefined {
  const here = import.meta.url;
  const module = here.endsWith('.ts') ? new URL('../../../dist/core/import/row-encoder.js', here) : new URL(here);
  return existsSync(fileURLToPath(module)) ? { module: module.href, options, everyChunk } : undefined;
}
