/**
 * The import's row encoder, run by the CSV parsing worker (src/io/csv-worker.ts loads it by its module path, so src/io
 * imports no core code): the same mapping, check and JSON.stringify the main thread would run on a row, and the
 * same hashes the duplicate check would compute (member-hash.ts), done on the worker's core instead. A row that is
 * not plainly valid (invalid, valid only with cells left out by "onInvalid": "omit", or one only zod can judge:
 * csv-plans.ts `plainItem`) is declined and comes to the main thread as its cells, which maps it as before. The
 * main thread decides per file whether to hand this over at all (read-candidates.ts `encodeAhead`;
 * docs/decisions.md "The CSV worker maps, checks and serialises").
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { RowEncoder, RowEncoderSpec } from '../../io/source.js';
import { contentHash, idHash, idHashHigh } from '../duplicates/member-hash.js';
import { compileCsvPlans } from '../mapping/csv-plans.js';
import type { Item } from '../mapping/item-paths.js';
import type { Mapping } from '../mapping/mapping-file.js';

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

/**
 * The encoder for a file's header. Its module graph loads no zod (test/e2e/start-up.test.ts): a row is mapped by the
 * header's plans and checked by the compiled check alone (csv-plans.ts `plainItem`), and a row that check does not
 * take is declined, where zod would explain it on the main thread. Only a --map file's text needs zod (its rules'
 * schemas, mapping-schema.ts): then it is loaded, and the encoder comes as a promise.
 */
export function createRowEncoder(headers: string[], options: RowEncoderOptions): RowEncoder | Promise<RowEncoder> {
  const text = options.mapping;
  if (!text) return encoderFor(headers, options, undefined);
  return import('../mapping/mapping-file.js').then(({ mappingFromText }) =>
    encoderFor(headers, options, mappingFromText(text.text, text.file)),
  );
}

function encoderFor(headers: string[], options: RowEncoderOptions, mapping: Mapping | undefined): RowEncoder {
  const { file, headerLine, ignoreUnknownColumns, emptyAsNull, hashes } = options;
  const plans = compileCsvPlans(headers, { file, headerLine, mapping, ignoreUnknownColumns, emptyAsNull });
  return (record, into) => {
    // a row read with a problem is the main thread's to report
    if (record.error) return false;
    const item: Item = {};
    if (!plans.plainItem(record.raw as readonly (string | undefined)[], item, record.quotedNullTokens)) return false;
    const { memberId } = item;
    into.json = JSON.stringify(item);
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
