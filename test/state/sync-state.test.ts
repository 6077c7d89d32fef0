import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { itemHash, textHash } from '../../src/state/item-hash.js';
import { SyncState } from '../../src/state/sync-state.js';
import { resetState } from '../../src/core/import/durable/state-admin.js';

const dirs: string[] = [];
function tempPath(name = 'members.state'): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-state-'));
  dirs.push(dir);
  return join(dir, name);
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('sync state', () => {
  it('creates a 0600 WAL database and keeps hashes across opens', () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    expect(state.lookup('m1')).toBeUndefined();
    state.commit([
      { memberId: 'm1', hash: itemHash({ a: 1 }), textHash: textHash(JSON.stringify({ a: 1 })) },
      { memberId: 'm2', hash: itemHash({ a: 2 }), textHash: textHash(JSON.stringify({ a: 2 })) },
    ]);
    state.commit([{ memberId: 'm1', hash: itemHash({ a: 3 }), textHash: textHash(JSON.stringify({ a: 3 })) }]);
    state.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const again = SyncState.open(path, { create: false });
    expect(again.lookup('m1')?.hash).toBe(itemHash({ a: 3 }));
    expect(again.lookup('m2')).toEqual({ hash: itemHash({ a: 2 }), textHash: textHash(JSON.stringify({ a: 2 })) });
    const summary = again.summary();
    expect(summary.members).toBe(2);
    expect(Date.parse(summary.lastUpdate!)).toBeGreaterThan(0);
    expect(again.member('m2')).toEqual({ memberId: 'm2', hash: itemHash({ a: 2 }), updatedAt: expect.any(String) });
    expect(again.member('nobody')).toBeUndefined();
    again.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('lookups share a read transaction that neither hides its own commits nor holds another writer back', async () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    state.commit([{ memberId: 'm1', hash: 'h1', textHash: 't1' }]);
    expect(state.lookup('m1')?.hash).toBe('h1'); // opens the shared read transaction
    expect(state.lookupTextHash('m1')).toBe('t1');
    state.commit([{ memberId: 'm1', hash: 'h2', textHash: 't2' }]);
    expect(state.lookup('m1')?.hash).toBe('h2'); // a member confirmed earlier in the run: its new hash
    expect(state.lookupTextHash('m1')).toBe('t2'); // the text-hash-only lookup reads in the same transaction
    expect(state.lookupTextHash('nobody')).toBeUndefined();
    const other = new Database(path);
    // committed for other connections at once, not a savepoint waiting for the read to end
    expect(other.prepare("SELECT item_hash FROM member_state WHERE member_id = 'm1'").pluck().get()).toBe('h2');
    other.prepare("UPDATE member_state SET item_hash = 'h3' WHERE member_id = 'm1'").run(); // not blocked by our read
    expect(state.lookup('m1')?.hash).toBe('h2'); // still the read transaction's snapshot...
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(state.lookup('m1')?.hash).toBe('h3'); // ...which ends on its own within a fraction of a second
    other.close();
    state.close();
  });

  it('forgets one member or all of them', () => {
    const state = SyncState.open(tempPath(), { create: true });
    state.commit(
      ['a', 'b', 'c'].map((memberId) => ({
        memberId,
        hash: itemHash(memberId),
        textHash: textHash(JSON.stringify(memberId)),
      })),
    );
    expect(state.forget('b')).toBe(true);
    expect(state.forget('b')).toBe(false);
    expect(state.lookup('b')).toBeUndefined();
    expect(state.reset()).toBe(2);
    expect(state.summary()).toEqual({ members: 0, lastUpdate: null, target: null, absent: 0, lastGoodRows: null });
    state.close();
  });

  it('a transaction that fails half-way leaves nothing behind', () => {
    const state = SyncState.open(tempPath(), { create: true });
    expect(() =>
      state.commit([
        { memberId: 'ok', hash: itemHash(1), textHash: textHash(JSON.stringify(1)) },
        { memberId: null as unknown as string, hash: itemHash(2), textHash: textHash(JSON.stringify(2)) },
      ]),
    ).toThrow();
    expect(state.lookup('ok')).toBeUndefined();
    state.close();
  });

  it('refuses a missing file unless creating, a non-database and a foreign database, with exit 2', () => {
    expect(() => SyncState.open(tempPath(), { create: false })).toThrow(
      expect.objectContaining({
        category: 'usage',
        code: 'state-file',
        message: expect.stringMatching(/no state file/),
      }),
    );
    const text = tempPath('notes.txt');
    writeFileSync(
      text,
      'hello, this is not SQLite at all, not even close.............................................',
    );
    expect(() => SyncState.open(text, { create: true })).toThrow(
      expect.objectContaining({ category: 'usage', message: expect.stringMatching(/not a memberctl state file/) }),
    );
    const foreign = tempPath('app.db');
    const db = new Database(foreign);
    db.exec('CREATE TABLE users (id INTEGER)');
    db.close();
    expect(() => SyncState.open(foreign, { create: true })).toThrow(
      expect.objectContaining({
        category: 'usage',
        message: expect.stringMatching(/SQLite database but not a memberctl state/),
      }),
    );
  });

  it('an existing but empty state (0 bytes, or a database without tables) is damaged, never a new state', () => {
    const empty = tempPath();
    writeFileSync(empty, '');
    for (const create of [true, false]) {
      expect(() => SyncState.open(empty, { create })).toThrow(
        expect.objectContaining({
          category: 'usage',
          code: 'state-damaged',
          message: expect.stringContaining('is empty'),
          hint: expect.stringContaining(`memberctl state reset --state ${empty}`),
        }),
      );
    }
    expect(statSync(empty).size).toBe(0); // refused, not filled in
    const tableless = tempPath('tableless.state');
    const db = new Database(tableless);
    db.pragma('user_version = 1'); // a valid SQLite header, no tables
    db.close();
    expect(() => SyncState.open(tableless, { create: true })).toThrow(
      expect.objectContaining({ code: 'state-damaged' }),
    );
    expect(resetState(empty).damagedMovedTo).toMatch(/\.damaged-/);
    const fresh = SyncState.open(empty, { create: false });
    expect(fresh.summary().members).toBe(0);
    fresh.close();
  });

  it('a new state is put in place with its tables: no empty file is ever visible, nothing is left beside it', () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    expect(state.created).toBe(true);
    state.close();
    expect(readdirSync(join(path, '..'))).toEqual(['members.state']);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toContain('state_meta');
    db.close();
    const again = SyncState.open(path, { create: true });
    expect(again.created).toBe(false);
    again.close();
  });

  it('two connections (two shards on one machine) can write the same file', () => {
    const path = tempPath();
    const a = SyncState.open(path, { create: true });
    const b = SyncState.open(path, { create: true });
    for (let i = 0; i < 50; i++) {
      a.commit([{ memberId: `a${i}`, hash: itemHash(i), textHash: textHash(JSON.stringify(i)) }]);
      b.commit([{ memberId: `b${i}`, hash: itemHash(i), textHash: textHash(JSON.stringify(i)) }]);
    }
    expect(a.summary().members).toBe(100);
    a.close();
    b.close();
  });

  it('a close that fails still closes the file and says so as an error of the state, with its cause', () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    state.commit([{ memberId: 'm1', hash: itemHash(1), textHash: textHash(JSON.stringify(1)) }]);
    expect(state.lookupTextHash('m1')).toBeDefined(); // the shared read is open: the close ends it first
    // the end of the read failing as SQLite would on a failing disk (a fault hard to cause for real)
    (state as unknown as { endRead: { run(): void } }).endRead = {
      run() {
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHMLOCK' });
      },
    };
    expect(() => state.close()).toThrow(
      expect.objectContaining({
        code: 'state-close',
        category: 'usage',
        message: `closing state file ${path} failed: SQLITE_IOERR_SHMLOCK`,
        details: { cause: 'SQLITE_IOERR_SHMLOCK' },
      }),
    );
    expect((state as unknown as { db: Database.Database }).db.open).toBe(false);
    state.close(); // closed: nothing more to do
    const again = SyncState.open(path, { create: false });
    expect(again.summary().members).toBe(1);
    again.close();
  });
});
