/**
 * --changed-only's first comparison, before a CSV row is even mapped: the hash of its source key (cells and
 * mapping) against the one stored with its member's last confirmed item. What must never happen: a row called
 * unchanged whose item is not the one the server last confirmed.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHooks } from '../../src/core/import/durable/hooks.js';
import type { SettledBatch } from '../../src/core/import/types.js';
import { createRecordMapper, parseMapping } from '../../src/core/mapping/index.js';
import type { SourceRecord } from '../../src/io/source.js';
import { ITEM_HASH_NAME, itemHash, textHash } from '../../src/state/item-hash.js';
import { shardOf } from '../../src/state/shard.js';
import { SyncState } from '../../src/state/sync-state.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function openState(): SyncState {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-source-'));
  dirs.push(dir);
  return SyncState.open(join(dir, 's.db'), { create: true });
}

const headers = ['memberId', 'email', 'isActive', 'createdAt'];
const mapper = createRecordMapper('csv', headers, { file: 'crm.csv' });
const row = (record: number, memberId: string, email: string): SourceRecord => ({
  record,
  line: record + 1,
  raw: [memberId, email, 'true', '2024-01-05T09:00:00Z'],
});
const sourceHashOf = (record: SourceRecord) => textHash(mapper.sourceKey!(record)!.key);

/** One run's view: beforeMap, then (when it does not decide) map and beforeSend, as the pipeline does. */
function decide(
  hooks: ReturnType<typeof buildHooks>['hooks'],
  record: SourceRecord,
): { decision: string; json?: string } {
  if (hooks.beforeMap?.(record) === 'unchanged') return { decision: 'unchanged (source)' };
  const candidate = mapper.toCandidate(record);
  if (!candidate.valid) throw new Error('test rows are valid');
  const json = JSON.stringify(candidate.item);
  return { decision: hooks.beforeSend!(candidate, json) as string, json };
}
const confirmed = (record: SourceRecord, json: string): SettledBatch => ({
  firstRecord: record.record,
  lastRecord: record.record,
  importedCount: 1,
  updatedCount: 0,
  records: [
    { record: record.record, line: record.line, memberId: (record.raw as string[])[0]!, outcome: 'confirmed', json },
  ],
});

describe('--changed-only by source key', () => {
  it("a row whose cells and mapping match its member's last confirmed row is unchanged before it is mapped", async () => {
    const state = openState();
    const sourceKey = mapper.sourceKey;
    const first = buildHooks({ state, changedOnly: true, sourceKey });
    const r = row(1, 'm1', 'm1@example.com');
    const sent = decide(first.hooks, r);
    expect(sent.decision).toBe('send');
    await first.hooks.onSettled!(confirmed(r, sent.json!));
    expect(state.lookupSourceHash('m1')).toBe(sourceHashOf(r));

    const next = buildHooks({ state, changedOnly: true, sourceKey });
    expect(decide(next.hooks, r).decision).toBe('unchanged (source)');
    expect(decide(next.hooks, row(2, 'm1', 'new@example.com')).decision).toBe('send');
    state.close();
  });

  it('cells that differ only in what the mapping ignores are unchanged by item, and their source hash is learned', () => {
    const state = openState();
    const r = row(1, 'm1', 'm1@example.com');
    const item = mapper.toCandidate(r);
    if (!item.valid) throw new Error('valid');
    state.commit([{ memberId: 'm1', hash: itemHash(item.item), textHash: textHash(JSON.stringify(item.item)) }]); // an older state: no source hash
    const padded = row(2, 'm1', '  m1@example.com ');
    const run = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey });
    expect(decide(run.hooks, padded).decision).toBe('unchanged');
    expect(state.lookupSourceHash('m1')).toBeNull(); // learned, written with the next commit or at the end
    run.flush();
    expect(state.lookupSourceHash('m1')).toBe(sourceHashOf(padded));
    expect(decide(buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey }).hooks, padded).decision).toBe(
      'unchanged (source)',
    );
    state.close();
  });

  it('a source hash never outlives its item: an item confirmed from JSON input clears it', async () => {
    const state = openState();
    const r = row(1, 'm1', 'csv@example.com');
    const csvRun = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey });
    await csvRun.hooks.onSettled!(confirmed(r, decide(csvRun.hooks, r).json!));
    // the same member from an NDJSON export (no source key), another email, confirmed
    const jsonRun = buildHooks({ state, changedOnly: true });
    const other = { memberId: 'm1', email: 'json@example.com', isActive: true, createdAt: '2024-01-05T09:00:00Z' };
    const candidate = { record: 1, line: 1, memberId: 'm1', raw: other, valid: true as const, item: other };
    expect(jsonRun.hooks.beforeSend!(candidate, JSON.stringify(other))).toBe('send');
    await jsonRun.hooks.onSettled!(confirmed(r, JSON.stringify(other)));
    expect(state.lookupSourceHash('m1')).toBeNull();
    // the old CSV row again: the server holds the JSON item, so it is sent
    expect(decide(buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey }).hooks, r).decision).toBe(
      'send',
    );
    state.close();
  });

  it('a hash learned for a member yields to a later row of it confirmed in the same commit', async () => {
    const state = openState();
    const old = row(1, 'm1', 'm1@example.com');
    const item = mapper.toCandidate(old);
    if (!item.valid) throw new Error('valid');
    state.commit([{ memberId: 'm1', hash: itemHash(item.item), textHash: textHash(JSON.stringify(item.item)) }]);
    const run = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey });
    expect(decide(run.hooks, row(1, 'm1', ' m1@example.com')).decision).toBe('unchanged'); // learned, pending
    const later = row(2, 'm1', 'later@example.com');
    const sent = decide(run.hooks, later);
    expect(sent.decision).toBe('send');
    await run.hooks.onSettled!(confirmed(later, sent.json!));
    expect(state.lookupSourceHash('m1')).toBe(sourceHashOf(later));
    state.close();
  });

  it('leaves rows of other shards and rows an earlier row of the member is ahead of to the usual path', async () => {
    const state = openState();
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    const rows = ids.map((id, i) => row(i + 1, id, `${id}@example.com`));
    const fill = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey });
    for (const r of rows) await fill.hooks.onSettled!(confirmed(r, decide(fill.hooks, r).json!));
    const shard = { index: 0, count: 2 };
    const sharded = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey, shard });
    for (const r of rows) {
      const mine = shardOf((r.raw as string[])[0], r.record, 2) === 0;
      expect(sharded.hooks.beforeMap!(r)).toBe(mine ? 'unchanged' : undefined);
    }
    // m1 changed then changed back within one file: the second row must follow the first, not match the state
    const run = buildHooks({ state, changedOnly: true, sourceKey: mapper.sourceKey });
    expect(decide(run.hooks, row(10, 'a1', 'changed@example.com')).decision).toBe('send');
    expect(run.hooks.beforeMap!(rows[0]!)).toBeUndefined();
    state.close();
  });

  it('the source key changes with the mapping and the null token, not with the file', () => {
    const cells = row(1, 'm1', 'm1@example.com');
    const key = (m: ReturnType<typeof createRecordMapper>) => m.sourceKey!(cells)!.key;
    expect(key(createRecordMapper('csv', headers, { file: 'other-name.csv' }))).toBe(key(mapper));
    expect(key(createRecordMapper('csv', headers, { file: 'crm.csv', nullToken: 'NULL' }))).not.toBe(key(mapper));
    const mapping = parseMapping({ columns: { email: 'customProperties.email' } }, 'map.json');
    expect(key(createRecordMapper('csv', headers, { file: 'crm.csv', mapping }))).not.toBe(key(mapper));
    expect(mapper.sourceKey!({ ...cells, error: { message: 'bad bytes' } })).toBeUndefined();
    // cells that hold the separator themselves cannot pass for other cells
    const nul = (a: string, b: string): SourceRecord => ({
      record: 1,
      line: 2,
      raw: ['m1', a, b, '2024-01-05T09:00:00Z'],
    });
    expect(mapper.sourceKey!(nul('x\0y', 'z'))!.key).not.toBe(mapper.sourceKey!(nul('x', 'y\0z'))!.key);
    expect(createRecordMapper('ndjson', undefined, { file: 'x.ndjson' }).sourceKey).toBeUndefined();
  });

  it('a state file from before the source hash is upgraded in place', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-source-'));
    dirs.push(dir);
    const path = join(dir, 'old.state');
    const db = new Database(path);
    db.exec(`CREATE TABLE member_state (member_id TEXT PRIMARY KEY NOT NULL, item_hash TEXT NOT NULL, text_hash TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE state_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;`);
    db.prepare("INSERT INTO state_meta VALUES ('item_hash', ?)").run(ITEM_HASH_NAME);
    db.prepare("INSERT INTO member_state VALUES ('m1', 'h', 't', 0)").run();
    db.close();
    const state = SyncState.open(path, { create: false });
    expect(state.lookupTextHash('m1')).toBe('t');
    expect(state.lookupSourceHash('m1')).toBeNull();
    state.commit([{ memberId: 'm2', hash: 'h2', textHash: 't2', sourceHash: 's2' }]);
    expect(state.lookupSourceHash('m2')).toBe('s2');
    state.close();
  });
});
