/**
 * Turns the journal, the sync state and the shard into the import pipeline's hooks:
 * - select: --shard keeps only this shard's members (the others are counted as `otherShards`, not as rows); with
 *   a state, every memberId read (beforeMap's too, of any shard) is marked seen, so the state can tell at the end
 *   which of its members the input no longer holds;
 * - beforeMap (CSV with a state): a row whose source key (its cells and the mapping: mapping/csv-mapper.ts)
 *   hashes like the one stored with its member's last confirmed item is `unchanged` before it is even mapped;
 * - beforeSend: a record an earlier run settled is restored from the journal; with --changed-only, a member
 *   whose item hashes like the last one the server confirmed is `unchanged` (the hash of the JSON text is
 *   compared first, the canonical hash only when the text differs: see state/item-hash.ts); with --refresh-after,
 *   an unchanged member whose confirmation is due (state/nightly-state.ts) is sent anyway;
 * - onSettled: the journal entry is written and synced, then the confirmed items' hashes are committed to the
 *   state (one transaction per response). The calls come in the order of the journal-ordering rule (ledger.ts)
 *   and their appends resolve in that order, so the commits keep it too: a member's later row is committed after.
 *
 * A member's later row is always sent while an earlier row of it is on its way (`onTheWay`): the state still
 * holds the hash from before that row, and comparing against it could call a row unchanged that the earlier row
 * is about to overwrite. Entries leave `onTheWay` when their row settles; a row that fails stays (its member's
 * later rows fail anyway), which costs memory only in proportion to the pipeline's own list of failed members.
 */
import type { BatchEntry } from '../../../state/journal-format.js';
import { encodeRanges } from '../../../state/journal-format.js';
import type { JournalWriter } from '../../../state/journal.js';
import { itemHash, textHash } from '../../../state/item-hash.js';
import type { ResumeIndex } from '../../../state/resume-index.js';
import { shardOf, type Shard } from '../../../state/shard.js';
import type { ConfirmedItem, LearnedSource, SyncState } from '../../../state/sync-state.js';
import { refreshDue } from '../../../state/nightly-state.js';
import type { SourceRecord } from '../../../io/source.js';
import type { SourceKey } from '../../mapping/index.js';
import type { ImportHooks, PreSendDecision, SettledBatch } from '../types.js';

export interface HookParts {
  shard?: Shard;
  journal?: JournalWriter;
  resumed?: ResumeIndex;
  state?: SyncState;
  changedOnly?: boolean;
  /** CSV input: a record's memberId and source key, without mapping it (readCandidates' sourceKey). */
  sourceKey?: (record: SourceRecord) => SourceKey | undefined;
  /** --refresh-after DAYS: a member confirmed longer ago is sent even when unchanged. */
  refreshAfterDays?: number;
}

/** Source hashes learned are written in batches of this many (and when the run ends). */
const LEARN_BATCH = 500;

export interface HookCounters {
  otherShards: number;
  /** Records restored from the journal instead of sent. */
  restored: number;
  /** Unchanged members sent anyway because their confirmation was older than --refresh-after. */
  refreshed: number;
}

export function buildHooks(parts: HookParts): { hooks: ImportHooks; counters: HookCounters; flush(): void } {
  const run = new HookState(parts);
  const { shard, journal, resumed, state, sourceKey } = parts;
  const hooks: ImportHooks = {};
  if (state && sourceKey) hooks.beforeMap = beforeMapHook(run, state, sourceKey);
  if (shard || state) hooks.select = selectHook(run);
  if (resumed || state) hooks.beforeSend = beforeSendHook(run);
  if (journal || state) hooks.onSettled = onSettledHook(run);
  return { hooks, counters: run.counters, flush: () => run.flush() };
}

/** A member's row this run sent, until it settles: what its commit to the state will need. */
interface OnTheWay {
  record: number;
  hash: string;
  textHash: string;
  sourceHash?: string;
}

/** What the hooks share over a run, named. */
class HookState {
  readonly counters: HookCounters = { otherShards: 0, restored: 0, refreshed: 0 };
  readonly onTheWay = new Map<string, OnTheWay>();
  /** The record whose memberId beforeMap marked seen (select then need not mark it again). */
  markedRecord = 0;
  /** The source hash of the record beforeMap saw last: beforeSend of that same record stores or learns it. */
  source: { record: number; hash: string } | undefined;
  /** Learned source hashes go with the next commit, before its items (a member's later row has the last word). */
  readonly learned: LearnedSource[] = [];
  readonly #now = Date.now();

  constructor(readonly parts: HookParts) {}

  flush(): void {
    this.parts.state?.commit([], this.learned.splice(0));
  }

  learn(memberId: string, sourceHash: string | undefined): void {
    if (sourceHash === undefined) return;
    if (this.learned.push({ memberId, sourceHash }) >= LEARN_BATCH) this.flush();
  }

  /**
   * --refresh-after: an unchanged member whose confirmation is old enough is sent again (read inside the lookups'
   * shared read transaction, so it costs a point lookup, only with the option).
   */
  refreshIsDue(memberId: string): boolean {
    const { refreshAfterDays, state } = this.parts;
    if (refreshAfterDays === undefined || !state) return false;
    const confirmedAt = state.nightly.confirmedAt(memberId);
    return confirmedAt !== undefined && refreshDue(memberId, confirmedAt, refreshAfterDays, this.#now);
  }
}

function beforeMapHook(
  run: HookState,
  state: SyncState,
  sourceKey: NonNullable<HookParts['sourceKey']>,
): NonNullable<ImportHooks['beforeMap']> {
  const { shard, changedOnly, resumed } = run.parts;
  return (raw) => {
    const record = raw as SourceRecord;
    run.source = undefined;
    const found = sourceKey(record);
    if (found) {
      // every memberId the input holds (any shard's, valid or not), so the state can tell who is absent from it
      state.nightly.markSeen(found.memberId);
      run.markedRecord = record.record;
    }
    if (!found || (shard && shardOf(found.memberId, record.record, shard.count) !== shard.index)) return undefined;
    const hash = textHash(found.key);
    run.source = { record: record.record, hash };
    if (!changedOnly || run.onTheWay.has(found.memberId) || resumed?.get(record.record)) return undefined;
    // a member due for a refresh goes on to be mapped and sent; beforeSend then asks again and counts it once
    return state.lookupSourceHash(found.memberId) === hash && !run.refreshIsDue(found.memberId)
      ? 'unchanged'
      : undefined;
  };
}

function selectHook(run: HookState): NonNullable<ImportHooks['select']> {
  const { shard, state } = run.parts;
  return (candidate) => {
    const memberId = candidate.valid ? candidate.item.memberId : candidate.memberId;
    if (state && memberId !== undefined && run.markedRecord !== candidate.record) state.nightly.markSeen(memberId);
    if (!shard || shardOf(memberId, candidate.record, shard.count) === shard.index) return true;
    run.counters.otherShards++;
    return false;
  };
}

function beforeSendHook(run: HookState): NonNullable<ImportHooks['beforeSend']> {
  const { resumed, state, changedOnly } = run.parts;
  return (candidate, json): PreSendDecision => {
    const done = resumed?.get(candidate.record);
    if (done) {
      run.counters.restored++;
      return { kind: 'done', ...done };
    }
    if (!state) return 'send';
    const memberId = candidate.item.memberId;
    const text = textHash(json);
    const sourceHash = run.source?.record === candidate.record ? run.source.hash : undefined;
    let hash: string | undefined;
    if (changedOnly && !run.onTheWay.has(memberId)) {
      // the text hash alone first: the canonical one is read (and computed) only when the text differs; both
      // reads are in this synchronous call, so no commit can come between them
      const storedText = state.lookupTextHash(memberId);
      // (the same item with its keys in another order has the same canonical hash)
      if (
        storedText !== undefined &&
        (storedText === text || state.lookup(memberId)?.hash === (hash = itemHash(candidate.item)))
      ) {
        if (!run.refreshIsDue(memberId)) {
          run.learn(memberId, sourceHash);
          return 'unchanged';
        }
        run.counters.refreshed++;
      }
    }
    run.onTheWay.set(memberId, {
      record: candidate.record,
      hash: hash ?? itemHash(candidate.item),
      textHash: text,
      sourceHash,
    });
    return 'send';
  };
}

/**
 * What the state will need is taken from the batch at the call, so that nothing holds the batch (its records and
 * the bytes of their JSON) while the journal's fsync runs: records kept that long outlive young-generation GCs and
 * get promoted.
 */
function onSettledHook(run: HookState): NonNullable<ImportHooks['onSettled']> {
  const { journal, state } = run.parts;
  return (batch) => {
    const appended = journal?.append(journalEntry(batch));
    if (!state) return appended;
    const settledNow = batch.records.map((settled) => {
      const on = run.onTheWay.get(settled.memberId);
      const mine = on?.record === settled.record ? on : undefined;
      const confirmed = settled.outcome === 'confirmed'; // skipped or rejected: the server did not take this item
      // (a row this run sent is its member's entry on the way: the JSON is decoded only for anything else)
      return { memberId: settled.memberId, mine, confirmed, json: confirmed && !mine ? settled.json : undefined };
    });
    const commit = () => {
      const confirmed: ConfirmedItem[] = [];
      for (const { memberId, mine, confirmed: taken, json } of settledNow) {
        // the entry leaves with the commit, not before: until then a later row must not be compared with the
        // state (and if a later row is already on its way, its entry stays)
        if (mine && run.onTheWay.get(memberId) === mine) run.onTheWay.delete(memberId);
        if (taken)
          confirmed.push({
            memberId,
            hash: mine?.hash ?? itemHash(JSON.parse(json!)),
            textHash: mine?.textHash ?? textHash(json!),
            sourceHash: mine?.sourceHash,
          });
      }
      state.commit(confirmed, run.learned.splice(0));
    };
    return appended ? appended.then(commit) : commit();
  };
}

export function journalEntry(batch: SettledBatch): BatchEntry {
  const ok: number[] = [];
  const skip: [number, string][] = [];
  const rej: [number, string][] = [];
  for (const r of batch.records) {
    if (r.outcome === 'confirmed') ok.push(r.record);
    else (r.outcome === 'skipped' ? skip : rej).push([r.record, r.reason ?? '']);
  }
  return { t: 'batch', ok: encodeRanges(ok), imp: batch.importedCount, upd: batch.updatedCount, skip, rej };
}
