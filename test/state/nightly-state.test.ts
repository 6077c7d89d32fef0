/**
 * The nightly side of the sync state: the last good run's row count, members absent from the input, the
 * --refresh-after schedule, and a damaged state file that says how to recover and can be reset.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncState } from '../../src/state/sync-state.js';
import { refreshDue } from '../../src/state/nightly-state.js';
import { resetState, stateOverview } from '../../src/core/import/durable/state-admin.js';

const dirs: string[] = [];
function tempPath(name = 'members.state'): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-nightly-'));
  dirs.push(dir);
  return join(dir, name);
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const confirm = (state: SyncState, ids: string[]) =>
  state.commit(ids.map((memberId) => ({ memberId, hash: `h-${memberId}`, textHash: `t-${memberId}` })));
const DAY = 24 * 60 * 60 * 1000;

describe('nightly state', () => {
  it('marks members the input no longer holds as absent, and clears the mark when they come back', () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    expect(state.created).toBe(true);
    const ids = Array.from({ length: 5000 }, (_, i) => `m${i}`);
    confirm(state, ids);
    for (const id of ids.slice(0, 4000)) state.nightly.markSeen(id);
    state.nightly.markSeen('not-in-state');
    expect(state.finishWholeRun(4001)).toBe(1000);
    expect(state.nightly.lastGoodRun()?.rows).toBe(4001);
    const absent = [...state.nightly.absentMembers()];
    expect(absent).toHaveLength(1000);
    expect(absent[0]).toEqual({ memberId: 'm4000', absentSince: expect.stringMatching(/^\d{4}-/) });
    state.close();

    const again = SyncState.open(path, { create: false });
    expect(again.created).toBe(false);
    // the next whole run: m4000-m4499 are back, m0 is gone
    for (const id of ids.slice(1, 4500)) again.nightly.markSeen(id);
    expect(again.finishWholeRun(4499)).toBe(501);
    expect(again.summary()).toMatchObject({ members: 5000, absent: 501, lastGoodRows: 4499 });
    expect([...again.nightly.absentMembers()].map((m) => m.memberId).slice(0, 2)).toEqual(['m0', 'm4500']);
    // reset forgets the members and the reference count
    again.reset();
    expect(again.summary()).toMatchObject({ members: 0, absent: 0, lastGoodRows: null });
    again.close();
  });

  it('spreads --refresh-after over the nights and never lets a confirmation grow older than DAYS', () => {
    const days = 10;
    const members = Array.from({ length: 10_000 }, (_, i) => `member-${i}`);
    const confirmedAt = Date.UTC(2026, 0, 1, 2); // everyone confirmed the same night (after a state reset)
    const perNight: number[] = [];
    const last = new Map(members.map((m) => [m, confirmedAt]));
    for (let night = 1; night <= 3 * days; night++) {
      const now = confirmedAt + night * DAY;
      let sent = 0;
      for (const m of members) {
        if (refreshDue(m, last.get(m)!, days, now)) {
          last.set(m, now);
          sent++;
        }
        expect(now - last.get(m)!).toBeLessThanOrEqual(days * DAY);
      }
      perNight.push(sent);
    }
    // no night carries everyone: about a tenth each, from the first night on
    expect(Math.max(...perNight)).toBeLessThan(members.length * 0.15);
    expect(Math.min(...perNight.slice(1))).toBeGreaterThan(members.length * 0.05);
    expect(refreshDue('x', confirmedAt, days, confirmedAt + 60_000)).toBe(false); // just confirmed
    // a confirmation from the future: due at once past an hour's skew, believed within it
    expect(refreshDue('x', confirmedAt + 10 * 365 * 86_400_000, days, confirmedAt)).toBe(true);
    expect(refreshDue('x', confirmedAt + 2 * 3_600_000, days, confirmedAt)).toBe(true);
    expect(refreshDue('x', confirmedAt + 60_000, days, confirmedAt)).toBe(false);
  });

  it('a damaged state says how to recover; state show reports it and state reset moves it aside', () => {
    const path = tempPath();
    const state = SyncState.open(path, { create: true });
    confirm(
      state,
      Array.from({ length: 20_000 }, (_, i) => `member-with-a-longer-id-${i}`),
    );
    state.close();
    truncateSync(path, Math.floor(statSync(path).size / 2));

    let error: unknown;
    try {
      SyncState.open(path, { create: true }).close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'state-damaged',
      message: expect.stringContaining('is damaged'),
      hint: expect.stringContaining(`memberctl state reset --state ${path}`),
    });
    expect((error as Error).message + (error as { hint: string }).hint).not.toContain('permissions');

    expect(stateOverview(path)).toMatchObject({ damaged: true, hint: expect.stringContaining('state reset') });
    const outcome = resetState(path, new Date('2026-11-25T02:00:00Z'));
    expect(outcome.damagedMovedTo).toBe(`${path}.damaged-2026-11-25T02-00-00-000Z`);
    expect(existsSync(outcome.damagedMovedTo!)).toBe(true);
    expect(stateOverview(path)).toMatchObject({ members: 0, lastGoodRows: null });
    expect(readdirSync(join(path, '..')).filter((name) => name.includes('damaged'))).toHaveLength(1);
  });
});
