/**
 * The --changed-only state: per memberId, the hashes (canonical and as-sent text) of the last upsert item the
 * server confirmed, in SQLite (better-sqlite3). Nothing is loaded up front: each candidate is one indexed point
 * lookup through a prepared statement, so a state of millions of members opens at once.
 *
 * Durability: WAL journal with synchronous=NORMAL. A committed batch survives a killed process; a power cut may
 * lose the last few commits, never corrupt the file. Losing a commit only means those members are sent again
 * next time (an upsert: safe), and a member is written here only after the server confirmed it, so the state
 * can never claim a member was sent when it was not. FULL would add an fsync per batch for no such guarantee.
 * Several processes (shards on one machine) may share a file: WAL lets them read while one writes, and
 * busy_timeout makes a writer wait its turn instead of failing.
 *
 * Lookups share a read transaction: in WAL mode a statement outside one starts its own (locks on the -shm file,
 * a look at the WAL index), which cost ~9× as much per lookup (docs/performance.md). The read transaction ends
 * before every write, so the next lookup sees what was just committed (a member confirmed earlier in this run is
 * compared with its new hash), and READ_SPAN_MS after it began at the latest, so it never holds back another
 * process's checkpoint for long.
 */
import type Database from 'better-sqlite3';
import { MemberctlError } from '../errors.js';
import { refuseOtherTarget } from './target-binding.js';
import { NightlyState } from './nightly-state.js';
import { checkSchema } from './state-schema.js';
import { prepareStateFile, sqlite } from './state-file.js';
import { stateCloseError, stateError } from './state-errors.js';

/**
 * SQLite reads the state through a memory map of up to this many bytes (about its first 1.3 million members)
 * instead of read() calls into its own 2 MB page cache: when the export is not in memberId order nearly every
 * lookup missed that cache (figures in docs/performance.md). The mapped pages are the OS's file cache: they count
 * in RSS but are shared and reclaimable, and a state in memberId order (the common case) costs the same either way.
 */
const MMAP_BYTES = 128 * 1024 * 1024;

/** The longest a shared read transaction stays open (see above). */
const READ_SPAN_MS = 100;

export interface ConfirmedItem {
  memberId: string;
  /** itemHash: of the canonical JSON (key order does not matter). */
  hash: string;
  /** textHash: of the JSON text as sent (the cheap first comparison). */
  textHash: string;
  /** Of the CSV row's source key (mapping/csv-mapper.ts), when the item came from one: the cheapest comparison. */
  sourceHash?: string;
}

export interface LearnedSource {
  memberId: string;
  sourceHash: string;
}

export interface StoredHashes {
  hash: string;
  textHash: string;
}

export interface MemberStateRow {
  memberId: string;
  hash: string;
  updatedAt: string;
}

export class SyncState {
  private readonly db: Database.Database;
  private readonly lookupStatement: Database.Statement<[string], [string, string]>;
  private readonly textHashStatement: Database.Statement<[string], string>;
  private readonly sourceHashStatement: Database.Statement<[string], string | null>;
  private readonly upsertStatement: Database.Statement<[string, string, string, number, string | null]>;
  private readonly stampStatement: Database.Statement<[string]>;
  private readonly commitMany: (items: readonly ConfirmedItem[], learned: readonly LearnedSource[]) => void;
  private readonly beginRead: Database.Statement<[]>;
  private readonly endRead: Database.Statement<[]>;
  private readOpen = false;
  private readTimer: NodeJS.Timeout | undefined;
  /** The nightly sync's side: row counts, members absent from the input, confirmation ages. */
  readonly nightly: NightlyState;
  /** True when open() created the file: a new state, every member will be sent. */
  created = false;

  /** Opens (and with `create`, creates) a state file; refuses files that are not memberctl state. */
  static open(path: string, options: { create: boolean; target?: string }): SyncState {
    const created = prepareStateFile(path, options.create);
    try {
      const state = new SyncState(new (sqlite())(path, { fileMustExist: true, timeout: 30_000 }), path);
      try {
        if (options.target !== undefined) state.bindTarget(options.target);
      } catch (error) {
        state.close();
        throw error;
      }
      state.created = created;
      return state;
    } catch (error) {
      if (error instanceof MemberctlError) throw error;
      throw stateError(path, error);
    }
  }

  private constructor(
    db: Database.Database,
    readonly path: string,
  ) {
    this.db = db;
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      checkSchema(db, path);
    } catch (error) {
      db.close();
      throw error;
    }
    this.lookupStatement = db
      .prepare<[string], [string, string]>('SELECT item_hash, text_hash FROM member_state WHERE member_id = ?')
      .raw();
    this.textHashStatement = db
      .prepare<[string], string>('SELECT text_hash FROM member_state WHERE member_id = ?')
      .pluck();
    this.sourceHashStatement = db
      .prepare<[string], string | null>('SELECT source_hash FROM member_state WHERE member_id = ?')
      .pluck();
    // source_hash is always overwritten, with NULL when the item did not come from a CSV row: a source hash left
    // from an older item would otherwise call that old row unchanged should it come back
    this.upsertStatement = db.prepare(
      'INSERT INTO member_state (member_id, item_hash, text_hash, updated_at, source_hash) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (member_id) DO UPDATE SET item_hash = excluded.item_hash, text_hash = excluded.text_hash, updated_at = excluded.updated_at, source_hash = excluded.source_hash',
    );
    const learnStatement = db.prepare<[string, string]>('UPDATE member_state SET source_hash = ? WHERE member_id = ?');
    this.stampStatement = db.prepare("INSERT OR REPLACE INTO state_meta (key, value) VALUES ('last_update', ?)");
    this.nightly = new NightlyState(db);
    this.beginRead = db.prepare('BEGIN');
    this.endRead = db.prepare('COMMIT');
    this.commitMany = db.transaction((items: readonly ConfirmedItem[], learned: readonly LearnedSource[]) => {
      // learned first: a member's later row confirmed in this same call must have the last word
      for (const source of learned) learnStatement.run(source.sourceHash, source.memberId);
      const now = Date.now();
      for (const item of items)
        this.upsertStatement.run(item.memberId, item.hash, item.textHash, now, item.sourceHash ?? null);
      this.stampStatement.run(new Date(now).toISOString());
    });
  }

  /** The hashes of the member's last confirmed item, if any. */
  lookup(memberId: string): StoredHashes | undefined {
    const row = this.read(this.lookupStatement, memberId);
    return row && { hash: row[0], textHash: row[1] };
  }

  /**
   * Only the hash of the member's last confirmed text: what an unchanged row is compared with first. One column as
   * a plain string, no row array and no object: half the cost of lookup(), on every row of a --changed-only pass.
   */
  lookupTextHash(memberId: string): string | undefined {
    return this.read(this.textHashStatement, memberId);
  }

  /** The source hash stored with the member's last confirmed item: null when it came from no CSV row. */
  lookupSourceHash(memberId: string): string | null | undefined {
    return this.read(this.sourceHashStatement, memberId);
  }

  /** One point lookup inside the shared read; a file found damaged midway says so (state-errors.ts). */
  private read<T>(statement: Database.Statement<[string], T>, memberId: string): T | undefined {
    try {
      if (!this.readOpen) this.openRead();
      return statement.get(memberId);
    } catch (error) {
      throw stateError(this.path, error);
    }
  }

  /**
   * Records the items of one confirmed response, in one transaction, and first the `learned` source hashes: of
   * rows found unchanged by their item (cells that differ only in ways the mapping ignores, or the first pass
   * after the mapping or memberctl changed), so their next pass is the cheap one. Learning leaves the member's
   * confirmed item alone: it never claims anything was sent.
   */
  commit(items: readonly ConfirmedItem[], learned: readonly LearnedSource[] = []): void {
    if (items.length === 0 && learned.length === 0) return;
    try {
      this.closeRead(); // a write inside it would only be a savepoint, committed when the read ends
      this.commitMany(items, learned);
    } catch (error) {
      throw stateError(this.path, error);
    }
  }

  /** After a run that read its whole input: absent members and the last good row count (see NightlyState). */
  finishWholeRun(rows: number): number {
    try {
      this.closeRead();
      return this.nightly.finishWholeRun(rows);
    } catch (error) {
      throw stateError(this.path, error);
    }
  }

  private openRead(): void {
    this.beginRead.run();
    this.readOpen = true;
    this.readTimer = setTimeout(() => this.closeRead(), READ_SPAN_MS);
    this.readTimer.unref();
  }

  private closeRead(): void {
    if (!this.readOpen) return;
    clearTimeout(this.readTimer);
    this.readOpen = false;
    if (this.db.inTransaction) this.endRead.run();
  }

  member(memberId: string): MemberStateRow | undefined {
    const row = this.db
      .prepare<[string], { item_hash: string; updated_at: number }>(
        'SELECT item_hash, updated_at FROM member_state WHERE member_id = ?',
      )
      .get(memberId);
    return row && { memberId, hash: row.item_hash, updatedAt: new Date(row.updated_at).toISOString() };
  }

  summary(): {
    members: number;
    lastUpdate: string | null;
    target: string | null;
    absent: number;
    lastGoodRows: number | null;
  } {
    const members = this.db.prepare<[], number>('SELECT count(*) FROM member_state').pluck().get() ?? 0;
    const meta = (key: string) =>
      this.db.prepare<[string], string>('SELECT value FROM state_meta WHERE key = ?').pluck().get(key) ?? null;
    return {
      members,
      lastUpdate: meta('last_update'),
      target: meta('target'),
      absent: this.nightly.absentCount(),
      lastGoodRows: this.nightly.lastGoodRun()?.rows ?? null,
    };
  }

  /**
   * A state says what one target confirmed: the first run binds it to its target, a run against another is
   * refused (exit 2, before anything is sent). A state from before targets were recorded is bound to the first
   * target that uses it. Kept as one target per file rather than rows per target: a second target is then a
   * second file, which the user names and sees, instead of a silent full send into the same file.
   */
  bindTarget(target: string): void {
    this.closeRead();
    const recorded = this.summary().target;
    if (recorded !== null) return refuseOtherTarget('state', this.path, recorded, target);
    this.db.prepare("INSERT OR REPLACE INTO state_meta (key, value) VALUES ('target', ?)").run(target);
  }

  /** Forgets a member (its next row will be sent). True when it was known. */
  forget(memberId: string): boolean {
    this.closeRead();
    return this.db.prepare('DELETE FROM member_state WHERE member_id = ?').run(memberId).changes > 0;
  }

  /** Forgets every member; returns how many there were. */
  reset(): number {
    this.closeRead();
    return this.db.transaction(() => {
      const removed = this.db.prepare('DELETE FROM member_state').run().changes;
      // nothing is known of any target now: the next import binds the state to its own
      this.db
        .prepare("DELETE FROM state_meta WHERE key IN ('last_update', 'target', 'last_good_rows', 'last_good_at')")
        .run();
      return removed;
    })();
  }

  /** Closes the file even when ending the shared read fails; an error is thrown as stateCloseError. */
  close(): void {
    if (!this.db.open) return;
    try {
      try {
        this.closeRead();
      } finally {
        this.db.close();
      }
    } catch (error) {
      throw stateCloseError(this.path, error);
    }
  }
}
