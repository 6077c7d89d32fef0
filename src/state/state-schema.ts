/**
 * The state file's tables, created on first open and grown in place (columns added by later versions are added
 * to older files when opened, never required of them), and the checks that a file is a memberctl state made with
 * this memberctl's item hash.
 */
import type Database from 'better-sqlite3';
import { InputError } from '../errors.js';
import { ITEM_HASH_NAME } from './item-hash.js';
import { addNightlyColumns } from './nightly-state.js';
import { emptyStateError } from './state-errors.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS member_state (
  member_id  TEXT PRIMARY KEY NOT NULL,
  item_hash  TEXT NOT NULL,
  text_hash  TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  source_hash TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;`;

/** The tables of a new state, made before the file is put in place (state-file.ts's createStateFile). */
export function createSchema(db: Database.Database): void {
  db.transaction(() => {
    db.exec(SCHEMA);
    addNightlyColumns(db);
    db.prepare("INSERT OR IGNORE INTO state_meta (key, value) VALUES ('item_hash', ?)").run(ITEM_HASH_NAME);
  }).immediate();
}

/**
 * Checks an existing file is a memberctl state, and grows it in place. A database with no tables at all is an
 * empty state: damaged, since a state is only ever put in place with its tables.
 */
export function checkSchema(db: Database.Database, path: string): void {
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
  if (tables.length === 0) throw emptyStateError(path);
  if (!tables.includes('state_meta')) {
    throw new InputError(`${path} is an SQLite database but not a memberctl state file`, {
      code: 'state-file',
      file: path,
      hint: 'Give --state a file of its own; memberctl creates it on the first run.',
    });
  }
  db.transaction(() => {
    db.exec(SCHEMA);
    // state files from before the source hash: the column is added (NULL: those members compare by item once)
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('member_state')").pluck().all();
    if (!columns.includes('source_hash')) db.exec('ALTER TABLE member_state ADD COLUMN source_hash TEXT');
    addNightlyColumns(db);
    db.prepare("INSERT OR IGNORE INTO state_meta (key, value) VALUES ('item_hash', ?)").run(ITEM_HASH_NAME);
  }).immediate();
  const hashName = db.prepare<[], string>("SELECT value FROM state_meta WHERE key = 'item_hash'").pluck().get();
  if (hashName !== ITEM_HASH_NAME) {
    throw new InputError(
      `state file ${path} was written with item hash "${hashName}", this memberctl uses "${ITEM_HASH_NAME}"`,
      {
        code: 'state-file',
        file: path,
        hint: 'Use a new --state file (every member is then sent once), or the memberctl version that wrote it.',
      },
    );
  }
}
