/**
 * Turns the journal, the sync state and the shard into the import pipeline's hooks:
 * - select: --shard keeps only this shard's members (the others are counted as `otherShards`, not as rows);
 * - beforeSend: a record an earlier run settled is restored from the journal; with --changed-only, a member
 *   whose item hashes like the last one the server confirmed is `unchanged` (the hash of the JSON text is
 *   compared first, the canonical hash only when the text differs: see state/item-hash.ts);
 * - onSettled: the journal entry is written and synced, then the confirmed items' hashes are committed to the
 *   state (one transaction per response), before the pipeline counts them and releases the members' next rows.
 *
 * A member's later row is always sent while an earlier row of it is on its way (`onTheWay`): the state still
 * holds the hash from before that row, and comparing against it could call a row unchanged that the earlier row
 * is about to overwrite. Entries leave `onTheWay` when their row settles; a row that fails stays (its member's
 * later rows fail anyway), which costs memory only in proportion to the pipeline's own list of failed members.
 */
import type { BatchEntry } from '../../state/journal-format.js';
import { encodeRanges } from '../../state/journal-format.js';
import type { JournalWriter } from '../../state/journal.js';
import { itemHash, textHash } from '../../state/item-hash.js';
import type { ResumeIndex } from '../../state/resume-index.js';
import { shardOf, type Shard } from '../../state/shard.js';
import type { ConfirmedItem, SyncState } from '../../state/sync-state.js';
import type { ImportHooks, PreSendDecision, SettledBatch } from '../import/types.js';

export interface HookParts {
  shard?: Shard;
  journal?: JournalWriter;
  resumed?: ResumeIndex;
  state?: SyncState;
  changedOnly?: boolean;
}

export interface HookCounters {
  otherShards: number;
  /** Records restored from the journal instead of sent. */
  restored: number;
}

export function buildHooks(parts: HookParts): { hooks: ImportHooks; counters: HookCounters } {
  const counters: HookCounters = { otherShards: 0, restored: 0 };
  const { shard, journal, resumed, state, changedOnly } = parts;
  const onTheWay = new Map<string, { record: number; hash: string; textHash: string }>();
  const hooks: ImportHooks = {};

  if (shard) {
    hooks.select = (candidate) => {
      const memberId = candidate.valid ? candidate.item.memberId : candidate.memberId;
      if (shardOf(memberId, candidate.record, shard.count) === shard.index) return true;
      counters.otherShards++;
      return false;
    };
  }

  if (resumed || state) {
    hooks.beforeSend = (candidate, json): PreSendDecision => {
      const done = resumed?.get(candidate.record);
      if (done) {
        counters.restored++;
        return { kind: 'done', ...done };
      }
      if (!state) return 'send';
      const memberId = candidate.item.memberId;
      const text = textHash(json);
      let hash: string | undefined;
      if (changedOnly && !onTheWay.has(memberId)) {
        // the text hash alone first: the canonical one is read (and computed) only when the text differs; both
        // reads are in this synchronous call, so no commit can come between them
        const storedText = state.lookupTextHash(memberId);
        if (storedText !== undefined) {
          if (storedText === text) return 'unchanged';
          hash = itemHash(candidate.item);
          if (state.lookup(memberId)?.hash === hash) return 'unchanged'; // same item, keys in another order
        }
      }
      onTheWay.set(memberId, { record: candidate.record, hash: hash ?? itemHash(candidate.item), textHash: text });
      return 'send';
    };
  }

  if (journal || state) {
    hooks.onSettled = async (batch) => {
      if (journal) await journal.append(journalEntry(batch));
      if (!state) return;
      const confirmed: ConfirmedItem[] = [];
      for (const settled of batch.records) {
        const on = onTheWay.get(settled.memberId);
        const mine = on?.record === settled.record ? on : undefined;
        if (mine) onTheWay.delete(settled.memberId);
        if (settled.outcome !== 'confirmed') continue; // skipped or rejected: the server did not take this item
        confirmed.push({ memberId: settled.memberId, hash: mine?.hash ?? itemHash(JSON.parse(settled.json)), textHash: mine?.textHash ?? textHash(settled.json) });
      }
      state.commit(confirmed);
    };
  }
  return { hooks, counters };
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
