/**
 * Reads a 200 response against the batch that was sent. The API does not say per record whether it was imported
 * or updated, only counts, plus a `skipped` list keyed by memberId. A batch never holds two rows of one member,
 * so a memberId names exactly one record of the batch.
 */
import type { ImportResult } from '../../schemas/index.js';
import type { PendingRecord } from './batcher.js';

export interface ResponseAccount {
  /** True when importedCount + updatedCount + skipped.length equals the batch size and every skipped entry names a record of the batch. */
  addsUp: boolean;
  /** Records the server skipped, with its reason. */
  skipped: { record: PendingRecord; reason: string | null }[];
  /** Records neither skipped nor explained: confirmed when the response adds up, failed otherwise. */
  rest: PendingRecord[];
  importedCount: number;
  updatedCount: number;
  /** Why it does not add up, for the warning. */
  problem?: string;
}

export function accountResponse(records: readonly PendingRecord[], result: ImportResult): ResponseAccount {
  const entries = result.skipped ?? [];
  // nothing skipped (the usual answer): every record is in the rest, without a Map of the batch's memberIds
  if (entries.length === 0) return checked(records, result, 0, { skipped: [], unmatched: [], rest: records.slice() });
  const byMember = new Map<string, PendingRecord>();
  for (const record of records) byMember.set(record.memberId, record);
  const skipped: ResponseAccount['skipped'] = [];
  const unmatched: (string | null)[] = [];
  for (const entry of entries) {
    const record = entry.memberId === null ? undefined : byMember.get(entry.memberId);
    if (record === undefined) {
      unmatched.push(entry.memberId);
      continue;
    }
    byMember.delete(entry.memberId!); // a second entry for the same member is unmatched
    skipped.push({ record, reason: entry.reason });
  }
  const rest = records.filter((record) => byMember.has(record.memberId));
  return checked(records, result, entries.length, { skipped, unmatched, rest });
}

/** The account, with what does not add up in it: the counts against the batch, and entries naming no record. */
function checked(
  records: readonly PendingRecord[],
  result: ImportResult,
  entryCount: number,
  matched: { skipped: ResponseAccount['skipped']; unmatched: (string | null)[]; rest: PendingRecord[] },
): ResponseAccount {
  const { skipped, unmatched, rest } = matched;
  const claimed = result.importedCount + result.updatedCount + entryCount;
  const problems: string[] = [];
  if (claimed !== records.length) {
    problems.push(
      `imported ${result.importedCount} + updated ${result.updatedCount} + skipped ${entryCount} = ${claimed}, but the batch held ${records.length} records`,
    );
  }
  if (result.importedCount < 0 || result.updatedCount < 0) problems.push('negative counts');
  if (unmatched.length > 0) {
    const names = unmatched.slice(0, 3).map((id) => (id === null ? 'null' : JSON.stringify(id)));
    problems.push(
      `${unmatched.length} skipped entr${unmatched.length === 1 ? 'y names' : 'ies name'} no record of the batch (memberId ${names.join(', ')}${unmatched.length > 3 ? ', …' : ''})`,
    );
  }
  return {
    addsUp: problems.length === 0,
    skipped,
    rest,
    importedCount: result.importedCount,
    updatedCount: result.updatedCount,
    problem: problems.length > 0 ? problems.join('; ') : undefined,
  };
}

/** "records 1001–1500" or "record 7": how warnings and reasons name a batch. */
export function recordRange(records: readonly PendingRecord[]): string {
  if (records.length === 0) return 'no records';
  let first = records[0]!.record;
  let last = first;
  for (const r of records) {
    if (r.record < first) first = r.record;
    if (r.record > last) last = r.record;
  }
  return first === last ? `record ${first}` : `records ${first}–${last}`;
}
