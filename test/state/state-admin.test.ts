/**
 * `memberctl state forget|reset|show` when the state's close fails as well: the error the user acts on is the
 * correction's own (a full disk, a damaged file), never the close's that followed it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncState } from '../../src/state/sync-state.js';
import { stateCloseError, stateError } from '../../src/state/state-errors.js';
import { InputError } from '../../src/errors.js';
import { forgetMember, initState, resetState, stateOverview } from '../../src/core/import/durable/state-admin.js';

const dirs: string[] = [];
function stateWithMembers(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-state-admin-'));
  dirs.push(dir);
  const path = join(dir, 'members.state');
  const state = SyncState.open(path, { create: true });
  state.commit(['m1', 'm2'].map((memberId) => ({ memberId, hash: `h-${memberId}`, textHash: `t-${memberId}` })));
  state.close();
  return path;
}
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The next close closes the file, then fails as SQLite does on a failing disk (a fault hard to cause for real). */
function failNextClose(path: string): void {
  const realClose = SyncState.prototype.close;
  vi.spyOn(SyncState.prototype, 'close').mockImplementationOnce(function (this: SyncState) {
    realClose.call(this);
    throw stateCloseError(path, Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_FSYNC' }));
  });
}

const failure = (work: () => unknown): unknown => {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
};

describe('state corrections when the close fails too', () => {
  it.each(['forget', 'reset'] as const)("state %s: the correction's own error is kept, not the close's", (which) => {
    const path = stateWithMembers();
    const full = stateError(path, Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    vi.spyOn(SyncState.prototype, which).mockImplementationOnce(() => {
      throw full;
    });
    failNextClose(path);
    const error = failure(() => (which === 'forget' ? forgetMember(path, 'm1') : resetState(path)));
    expect(error).toBe(full);
    const again = SyncState.open(path, { create: false }); // closed: the lock-free reopen sees both members
    expect(again.summary().members).toBe(2);
    again.close();
  });

  it('state show: a damaged state is still shown as damaged when its close fails after', () => {
    const path = stateWithMembers();
    vi.spyOn(SyncState.prototype, 'summary').mockImplementationOnce(() => {
      throw new InputError(`${path} is damaged`, {
        code: 'state-damaged',
        file: path,
        hint: `memberctl state reset --state ${path}`,
      });
    });
    failNextClose(path);
    expect(stateOverview(path)).toMatchObject({ damaged: true, problem: `${path} is damaged` });
  });

  it('a close that fails after a correction that worked is still an error of its own', () => {
    const path = stateWithMembers();
    failNextClose(path);
    expect(failure(() => forgetMember(path, 'm1'))).toMatchObject({ code: 'state-close', file: path });
  });
});

describe('state init: the empty state a job that always passes --require-state starts from', () => {
  it('creates an empty state, and leaves one already there as it is (members and all)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-state-admin-'));
    dirs.push(dir);
    const path = join(dir, 'new.state');
    expect(initState(path)).toEqual({ state: path, created: true, members: 0 });
    expect(stateOverview(path)).toMatchObject({ members: 0, target: null, lastGoodRows: null });
    const filled = stateWithMembers();
    expect(initState(filled)).toEqual({ state: filled, created: false, members: 2 });
    expect(stateOverview(filled)).toMatchObject({ members: 2 });
  });
});

describe('state reset on a file that is no state', () => {
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-state-admin-'));
    dirs.push(dir);
    return dir;
  };

  it('moves aside a file that is not an SQLite database, as the error on opening it promises', () => {
    const path = join(freshDir(), 'garbage.state');
    writeFileSync(path, 'garbage');
    expect(failure(() => SyncState.open(path, { create: false }))).toMatchObject({
      code: 'state-file',
      hint: expect.stringContaining('`memberctl state reset'),
    });
    const done = resetState(path, new Date('2026-01-02T03:04:05.006Z'));
    expect(done).toEqual({ state: path, forgotten: null, damagedMovedTo: `${path}.damaged-2026-01-02T03-04-05-006Z` });
    expect(readFileSync(done.damagedMovedTo!, 'utf8')).toBe('garbage');
    expect(stateOverview(path)).toMatchObject({ members: 0 });
  });

  it.skipIf(process.platform === 'win32')(
    'a FIFO is named as one, never called empty, and reset leaves it alone',
    () => {
      const path = join(freshDir(), 'fifo.state');
      execFileSync('mkfifo', [path]);
      const opened = failure(() => SyncState.open(path, { create: false })) as InputError;
      expect(opened.message).toBe(
        `${path} is a FIFO (named pipe), not a regular file: it cannot be a memberctl state file`,
      );
      expect(failure(() => resetState(path))).toMatchObject({ code: 'state-file' });
      expect(statSync(path).isFIFO()).toBe(true);
    },
  );
});
