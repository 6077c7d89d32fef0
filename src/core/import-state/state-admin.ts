/** `memberctl state`: inspect and correct a --changed-only state file (never created here). */
import { SyncState, type MemberStateRow } from '../../state/sync-state.js';

export interface StateOverview {
  state: string;
  members: number;
  lastUpdate: string | null;
  /** What the state was filled against (null: no import has used it yet). */
  target: string | null;
}

function withState<T>(path: string, work: (state: SyncState) => T): T {
  const state = SyncState.open(path, { create: false });
  try {
    return work(state);
  } finally {
    state.close();
  }
}

export function stateOverview(path: string): StateOverview {
  return withState(path, (state) => ({ state: path, ...state.summary() }));
}

export function stateOfMember(path: string, memberId: string): { state: string; memberId: string; known: boolean; hash: string | null; updatedAt: string | null } {
  return withState(path, (state) => {
    const row: MemberStateRow | undefined = state.member(memberId);
    return { state: path, memberId, known: row !== undefined, hash: row?.hash ?? null, updatedAt: row?.updatedAt ?? null };
  });
}

export function forgetMember(path: string, memberId: string): { state: string; memberId: string; forgotten: boolean } {
  return withState(path, (state) => ({ state: path, memberId, forgotten: state.forget(memberId) }));
}

export function resetState(path: string): { state: string; forgotten: number } {
  return withState(path, (state) => ({ state: path, forgotten: state.reset() }));
}
