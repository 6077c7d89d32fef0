/** `memberctl state`: inspect and correct a --changed-only state file (created here only by init and reset). */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { InputError } from '../../../errors.js';
import type { AbsentMember } from '../../../state/nightly-state.js';
import { SyncState, type MemberStateRow } from '../../../state/sync-state.js';
import { acquireStateLock } from '../../../state/state-lock.js';
import { NOT_A_DATABASE } from '../../../state/state-errors.js';

export interface StateOverview {
  state: string;
  members: number;
  lastUpdate: string | null;
  /** What the state was filled against (null: no import has used it yet). */
  target: string | null;
  /** Members absent from the last whole run's input (`state absent` lists them). */
  absent: number;
  /** The last good run's row count: the shrink guard's reference. */
  lastGoodRows: number | null;
}

/** A state that cannot be read: what `state show` says instead of failing. */
export interface DamagedOverview {
  state: string;
  damaged: true;
  problem: string;
  hint: string;
}

function withState<T>(path: string, work: (state: SyncState) => T): T {
  const state = SyncState.open(path, { create: false });
  let result: T;
  try {
    result = work(state);
  } catch (error) {
    closeAfterFailure(state);
    throw error;
  }
  state.close();
  return result;
}

/**
 * Closes a state whose work failed. The work's error is the one to report (a full disk, a damaged file: what
 * `state show` and `state reset` act on); a close failing after it is most often its consequence, and the file
 * is closed either way (SyncState.close), so the close's error is not let replace it.
 */
function closeAfterFailure(state: SyncState): void {
  try {
    state.close();
  } catch {
    // the work's error is thrown instead
  }
}

function isDamagedState(error: unknown): error is InputError {
  return error instanceof InputError && error.code === 'state-damaged';
}

/** Damaged, or no SQLite database at all (overwritten): both are moved aside by `state reset`, as their hints say. */
function isMovableState(error: unknown): boolean {
  if (isDamagedState(error)) return true;
  const details = error instanceof InputError ? (error.details as { reason?: unknown } | undefined) : undefined;
  return details?.reason === NOT_A_DATABASE;
}

export function stateOverview(path: string): StateOverview | DamagedOverview {
  try {
    return withState(path, (state) => ({ state: path, ...state.summary() }));
  } catch (error) {
    if (!isDamagedState(error)) throw error;
    return { state: path, damaged: true, problem: error.message, hint: error.hint ?? '' };
  }
}

export function stateOfMember(
  path: string,
  memberId: string,
): { state: string; memberId: string; known: boolean; hash: string | null; updatedAt: string | null } {
  return withState(path, (state) => {
    const row: MemberStateRow | undefined = state.member(memberId);
    return {
      state: path,
      memberId,
      known: row !== undefined,
      hash: row?.hash ?? null,
      updatedAt: row?.updatedAt ?? null,
    };
  });
}

/**
 * Runs a correction (forget, reset) holding the state's lock, as an import does: an import running on the state
 * refuses it (exit 2, naming its pid) instead of having its confirmations and the correction interleave.
 */
export async function withStateLock<T>(path: string, work: () => T, notice?: (message: string) => void): Promise<T> {
  // (notice: a lock held elsewhere is watched for up to a lease first, and the wait is said)
  const lock = await acquireStateLock(path, undefined, { notice });
  try {
    return work();
  } finally {
    await lock.release();
  }
}

export function forgetMember(path: string, memberId: string): { state: string; memberId: string; forgotten: boolean } {
  return withState(path, (state) => ({ state: path, memberId, forgotten: state.forget(memberId) }));
}

/**
 * Creates an empty state, so that a job that always passes --require-state can run its first night (which sends
 * every member). A state already there is left as it is, members and all: running init twice is harmless.
 */
export function initState(path: string): { state: string; created: boolean; members: number } {
  const state = SyncState.open(path, { create: true });
  let members: number;
  try {
    members = state.summary().members;
  } catch (error) {
    closeAfterFailure(state);
    throw error;
  }
  state.close();
  return { state: path, created: state.created, members };
}

/**
 * Forgets every member. A damaged file, or one that is no SQLite database at all, cannot be emptied through
 * SQLite: it is moved aside (with its -wal;
 * nothing is deleted that could help someone look into the damage) and a new, empty state takes its place.
 */
export function resetState(
  path: string,
  now = new Date(),
): { state: string; forgotten: number | null; damagedMovedTo?: string } {
  try {
    return withState(path, (state) => ({ state: path, forgotten: state.reset() }));
  } catch (error) {
    if (!isMovableState(error)) throw error;
  }
  const aside = `${path}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${aside}-wal`);
  rmSync(`${path}-shm`, { force: true }); // only an index of the -wal, rebuilt from it
  SyncState.open(path, { create: true }).close();
  return { state: path, forgotten: null, damagedMovedTo: aside };
}

/** Calls `each` for every member absent from the last whole run's input, in memberId order; returns the count. */
export async function listAbsent(path: string, each: (member: AbsentMember) => Promise<void> | void): Promise<number> {
  const state = SyncState.open(path, { create: false });
  let count = 0;
  try {
    for (const member of state.nightly.absentMembers()) {
      count++;
      const waiting = each(member);
      if (waiting) await waiting;
    }
  } catch (error) {
    closeAfterFailure(state); // a closed stdout or a full --out disk is what is reported
    throw error;
  }
  state.close();
  return count;
}
