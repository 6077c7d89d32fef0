/** The glue: journal session decisions (exists / resume / mismatch / stdin) and the hooks' decisions. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Candidate } from '../../src/core/candidate.js';
import { openImportState } from '../../src/core/import/durable/index.js';
import { buildHooks } from '../../src/core/import/durable/hooks.js';
import type { ImportSummary, SettledBatch } from '../../src/core/import/types.js';
import type { MemberUpsertItem } from '../../src/schemas/index.js';
import { itemHash, textHash } from '../../src/state/item-hash.js';
import { SyncState } from '../../src/state/sync-state.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-istate-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const item = (memberId: string, email = `${memberId}@example.com`): MemberUpsertItem => ({
  memberId,
  isActive: true,
  createdAt: '2024-01-01T00:00:00Z',
  email,
});
const valid = (record: number, it: MemberUpsertItem) => ({
  record,
  line: record + 1,
  memberId: it.memberId,
  raw: {},
  valid: true as const,
  item: it,
});
const ok: Partial<ImportSummary> = { failed: 0 };
/** The run's target: journals and state files are bound to it (state/target-binding.ts). */
const TARGET = 'http://x/';
const settledBatch = (
  records: {
    record: number;
    memberId: string;
    outcome: 'confirmed' | 'skipped' | 'rejected';
    reason?: string;
    json?: string;
  }[],
  imp: number,
  upd: number,
): SettledBatch => ({
  firstRecord: records[0]!.record,
  lastRecord: records[records.length - 1]!.record,
  importedCount: imp,
  updatedCount: upd,
  records: records.map((r) => ({ line: r.record + 1, json: r.json ?? JSON.stringify(item(r.memberId)), ...r })),
});

describe('state session', () => {
  it('--require-state refuses a state file that exists but is empty (exit 2, the recovery hint): nothing is sent', async () => {
    const dir = tempDir();
    const file = join(dir, 'members.csv');
    writeFileSync(file, 'memberId,isActive,createdAt\nm1,true,2024-01-01T00:00:00Z\n');
    const statePath = join(dir, 'members.state');
    writeFileSync(statePath, '');
    await expect(
      openImportState(
        { input: file, journal: {}, statePath, changedOnly: true, requireState: true, target: TARGET },
        () => undefined,
      ),
    ).rejects.toMatchObject({ category: 'usage', code: 'state-damaged', hint: expect.stringContaining('state reset') });
  });
});

describe('clocks', () => {
  it('a night with the clock 10 years fast does not silence --refresh-after; the state from the future is reported', async () => {
    const dir = tempDir();
    const file = join(dir, 'members.csv');
    writeFileSync(file, 'memberId,isActive,createdAt\nm1,true,2024-01-01T00:00:00Z\n');
    const statePath = join(dir, 'members.state');
    const members = Array.from({ length: 300 }, (_, i) => item(`member-${i}`));
    const tenYears = 10 * 365 * 24 * 60 * 60 * 1000;
    const realNow = Date.now();
    // the night the clock was 10 years fast: every member confirmed "in 2036"
    const fast = vi.spyOn(Date, 'now').mockReturnValue(realNow + tenYears);
    const state = SyncState.open(statePath, { create: true, target: TARGET });
    state.commit(
      members.map((m) => ({ memberId: m.memberId, hash: itemHash(m), textHash: textHash(JSON.stringify(m)) })),
    );
    state.close();
    fast.mockRestore();

    const warnings: string[] = [];
    const session = await openImportState(
      {
        input: file,
        journal: { disabled: true },
        statePath,
        changedOnly: true,
        refreshAfterDays: 30,
        target: TARGET,
      },
      () => undefined,
      (message) => warnings.push(message),
    );
    const decisions = members.map((m, i) => session.hooks.beforeSend!(valid(i + 1, m), JSON.stringify(m)));
    expect(decisions.filter((d) => d === 'send')).toHaveLength(300);
    expect(session.counters.refreshed).toBe(300);
    const ahead = new Date(realNow + tenYears).toISOString().slice(0, 13); // the hour, whatever the seconds
    expect(warnings).toEqual([expect.stringContaining(`was last written at ${ahead}`)]);
    expect(warnings[0]).toContain("ahead of this machine's clock");
    await session.finish({ failed: 0 } as ImportSummary);
  });
});

describe('journal session', () => {
  function input(dir: string, text = 'memberId,isActive,createdAt\nm1,true,2024-01-01T00:00:00Z\n') {
    const path = join(dir, 'members.csv');
    writeFileSync(path, text);
    return path;
  }

  it('keeps a journal beside the input; a second run without --resume is exit 2; --resume restores; success removes it', async () => {
    const file = input(tempDir());
    const notices: string[] = [];
    const first = await openImportState({ target: TARGET, input: file, journal: {} }, (m) => notices.push(m));
    expect(first.journalPath).toBe(`${file}.memberctl-journal`);
    await first.hooks.onSettled!(
      settledBatch(
        [
          { record: 1, memberId: 'm1', outcome: 'confirmed' },
          { record: 2, memberId: 'm2', outcome: 'skipped', reason: 'locked' },
        ],
        0,
        1,
      ),
    );
    expect(await first.finish({ failed: 1 } as ImportSummary)).toEqual({ journalKept: true });
    const [header] = readFileSync(`${file}.memberctl-journal`, 'utf8').split('\n');
    expect(JSON.parse(header!)).toMatchObject({ memberctl: 'journal', target: TARGET }); // bound to the run's target

    await expect(openImportState({ target: TARGET, input: file, journal: {} }, () => undefined)).rejects.toMatchObject({
      category: 'usage',
      code: 'journal-exists',
      message: expect.stringContaining(
        '2 records settled by 1 earlier run (0 imported, 1 updated, 1 skipped, 0 rejected)',
      ),
      hint: expect.stringMatching(/--resume .* --restart/),
    });

    const resumed = await openImportState({ target: TARGET, input: file, journal: { resume: true } }, (m) =>
      notices.push(m),
    );
    expect(resumed.resumedRecords).toBe(2);
    expect(notices.at(-1)).toMatch(/^resuming from .*: 2 records settled/);
    expect(resumed.hooks.beforeSend!(valid(1, item('m1')), JSON.stringify(item('m1')))).toEqual({
      kind: 'done',
      outcome: 'updated',
    });
    expect(resumed.hooks.beforeSend!(valid(2, item('m2')), JSON.stringify(item('m2')))).toEqual({
      kind: 'done',
      outcome: 'skipped',
      reason: 'locked',
    });
    expect(resumed.hooks.beforeSend!(valid(3, item('m3')), JSON.stringify(item('m3')))).toBe('send');
    expect(resumed.counters.restored).toBe(2);
    expect(await resumed.finish(ok as ImportSummary)).toEqual({ journalKept: false });
    expect(existsSync(`${file}.memberctl-journal`)).toBe(false);
  });

  it('refuses to resume with another file, even of the same size (exit 2)', async () => {
    const dir = tempDir();
    const file = input(dir, 'memberId\nAAAA\n');
    const first = await openImportState({ target: TARGET, input: file, journal: {} }, () => undefined);
    await first.hooks.onSettled!(settledBatch([{ record: 1, memberId: 'AAAA', outcome: 'confirmed' }], 1, 0));
    await first.finish(undefined);
    writeFileSync(file, 'memberId\nBBBB\n');
    await expect(
      openImportState({ target: TARGET, input: file, journal: { resume: true } }, () => undefined),
    ).rejects.toMatchObject({
      category: 'usage',
      code: 'journal-mismatch',
      message: expect.stringMatching(/belongs to another file.*has 14 bytes and other content/),
    });
    writeFileSync(file, 'memberId\nBBBBB\n');
    await expect(
      openImportState({ target: TARGET, input: file, journal: { resume: true } }, () => undefined),
    ).rejects.toMatchObject({
      code: 'journal-mismatch',
      message: expect.stringMatching(/15 bytes$/),
    });
    // --restart discards it
    const restarted = await openImportState(
      { target: TARGET, input: file, journal: { restart: true, keep: true } },
      () => undefined,
    );
    await restarted.finish(ok as ImportSummary);
    expect(readFileSync(`${file}.memberctl-journal`, 'utf8').split('\n').filter(Boolean)).toHaveLength(2); // header + run
  });

  it('refuses a journal written in another format version (exit 2)', async () => {
    const file = input(tempDir());
    writeFileSync(
      `${file}.memberctl-journal`,
      `${JSON.stringify({ memberctl: 'journal', v: 2, input: { path: file, size: 1, sha256: 'x' }, shard: null, createdAt: '' })}\n`,
    );
    await expect(
      openImportState({ target: TARGET, input: file, journal: { resume: true } }, () => undefined),
    ).rejects.toMatchObject({
      category: 'usage',
      code: 'journal-version',
    });
  });

  it('refuses to resume a journal of another shard, and names journals per shard', async () => {
    const file = input(tempDir());
    const s1 = await openImportState(
      { target: TARGET, input: file, shard: { index: 1, count: 3 }, journal: {} },
      () => undefined,
    );
    expect(s1.journalPath).toBe(`${file}.shard-1-of-3.memberctl-journal`);
    await s1.hooks.onSettled!(settledBatch([{ record: 1, memberId: 'm1', outcome: 'confirmed' }], 1, 0));
    await s1.finish(undefined);
    await expect(
      openImportState(
        {
          target: TARGET,
          input: file,
          shard: { index: 2, count: 3 },
          journal: { resume: true, path: `${file}.shard-1-of-3.memberctl-journal` },
        },
        () => undefined,
      ),
    ).rejects.toMatchObject({ code: 'journal-mismatch', message: expect.stringContaining('--shard 1/3') });
  });

  it('--resume with no journal starts from the first record, with a notice', async () => {
    const file = input(tempDir());
    const notices: string[] = [];
    const session = await openImportState({ target: TARGET, input: file, journal: { resume: true } }, (m) =>
      notices.push(m),
    );
    expect(notices).toEqual([expect.stringMatching(/^no journal at .*: nothing to resume/)]);
    expect(session.resumedRecords).toBe(0);
    await session.finish(ok as ImportSummary);
  });

  it('a journal whose header never reached the disk counts as none', async () => {
    const file = input(tempDir());
    writeFileSync(`${file}.memberctl-journal`, '');
    const session = await openImportState({ target: TARGET, input: file, journal: {} }, () => undefined);
    await session.hooks.onSettled!(settledBatch([{ record: 1, memberId: 'm1', outcome: 'confirmed' }], 1, 0));
    await session.finish({ failed: 2 } as ImportSummary);
    expect(readFileSync(`${file}.memberctl-journal`, 'utf8')).toMatch(/^\{"memberctl":"journal"/);
  });

  it('a fresh journal nothing was written to is removed even when the run failed (nothing to resume)', async () => {
    const file = input(tempDir());
    const session = await openImportState({ target: TARGET, input: file, journal: {} }, () => undefined);
    expect(await session.finish({ failed: 5, stopReason: 'credentials' } as ImportSummary)).toEqual({
      journalKept: false,
    });
    expect(existsSync(`${file}.memberctl-journal`)).toBe(false);
  });

  it('standard input: no journal, a notice; --resume / --journal are exit 2', async () => {
    const notices: string[] = [];
    const session = await openImportState({ target: TARGET, input: '-', journal: {} }, (m) => notices.push(m));
    expect(session.journalPath).toBeUndefined();
    expect(notices[0]).toMatch(/standard input: no journal/);
    for (const journal of [{ resume: true }, { path: 'x' }, { keep: true }]) {
      await expect(openImportState({ target: TARGET, input: '-', journal }, () => undefined)).rejects.toMatchObject({
        category: 'usage',
        code: 'journal-stdin',
      });
    }
    await expect(
      openImportState({ target: TARGET, input: 'x.csv', journal: { resume: true, restart: true } }, () => undefined),
    ).rejects.toMatchObject({ category: 'usage' });
    await expect(
      openImportState({ target: TARGET, input: 'x.csv', journal: { disabled: true, resume: true } }, () => undefined),
    ).rejects.toMatchObject({ category: 'usage' });
    await expect(
      openImportState({ target: TARGET, input: 'x.csv', journal: {}, changedOnly: true }, () => undefined),
    ).rejects.toMatchObject({ category: 'usage', code: 'changed-only-state' });
  });

  it('a named pipe (import <(zcat …)) is read once, like standard input: no journal, no hashing that would consume it', async () => {
    const fifo = join(tempDir(), 'export.csv');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    const notices: string[] = [];
    // hashing would block here until a writer opened the pipe, then eat what the import should read
    const session = await openImportState({ target: TARGET, input: fifo, journal: {} }, (m) => notices.push(m));
    expect(session.journalPath).toBeUndefined();
    expect(notices[0]).toMatch(/export\.csv \(a pipe\): no journal is kept/);
    await expect(
      openImportState({ target: TARGET, input: fifo, journal: { resume: true } }, () => undefined),
    ).rejects.toMatchObject({
      category: 'usage',
      code: 'journal-stdin',
    });
  });

  it('an unwritable journal place fails before anything is sent, naming --journal and --no-journal', async () => {
    const file = input(tempDir());
    await expect(
      openImportState({ target: TARGET, input: file, journal: { path: join(file, 'cannot', 'be') } }, () => undefined),
    ).rejects.toMatchObject({
      category: 'usage',
      code: 'journal',
      hint: expect.stringMatching(/--journal PATH.*--no-journal/),
    });
  });
});

describe('hooks', () => {
  it('--shard selects by memberId and counts the others', () => {
    const { hooks, counters } = buildHooks({ shard: { index: 0, count: 2 } });
    const candidates: Candidate[] = Array.from({ length: 100 }, (_, i) => valid(i + 1, item(`member-${i}`)));
    candidates.push({ record: 101, line: 102, raw: 'x', valid: false, issues: [] });
    const kept = candidates.filter((c) => hooks.select!(c)).length;
    expect(kept + counters.otherShards).toBe(101);
    expect(kept).toBeGreaterThan(30);
    expect(kept).toBeLessThan(70);
    expect(hooks.beforeSend).toBeUndefined();
    expect(hooks.onSettled).toBeUndefined();
  });

  it('--changed-only: unchanged members are not sent; state changes only on confirmation', async () => {
    const state = SyncState.open(join(tempDir(), 's.db'), { create: true });
    state.commit([
      { memberId: 'same', hash: itemHash(item('same')), textHash: textHash(JSON.stringify(item('same'))) },
      {
        memberId: 'changed',
        hash: itemHash(item('changed', 'old@example.com')),
        textHash: textHash(JSON.stringify(item('changed', 'old@example.com'))),
      },
      {
        memberId: 'skipme',
        hash: itemHash(item('skipme', 'old@x')),
        textHash: textHash(JSON.stringify(item('skipme', 'old@x'))),
      },
    ]);
    const { hooks } = buildHooks({ state, changedOnly: true });
    expect(hooks.beforeSend!(valid(1, item('same')), JSON.stringify(item('same')))).toBe('unchanged');
    // key order does not matter
    const reordered = {
      email: 'same@example.com',
      createdAt: '2024-01-01T00:00:00Z',
      isActive: true,
      memberId: 'same',
    };
    expect(hooks.beforeSend!(valid(2, reordered), JSON.stringify(reordered))).toBe('unchanged');
    expect(hooks.beforeSend!(valid(3, item('changed')), JSON.stringify(item('changed')))).toBe('send');
    expect(hooks.beforeSend!(valid(4, item('new')), JSON.stringify(item('new')))).toBe('send');
    expect(hooks.beforeSend!(valid(5, item('skipme')), JSON.stringify(item('skipme')))).toBe('send');
    await hooks.onSettled!(
      settledBatch(
        [
          { record: 3, memberId: 'changed', outcome: 'confirmed' },
          { record: 4, memberId: 'new', outcome: 'confirmed' },
          { record: 5, memberId: 'skipme', outcome: 'skipped', reason: 'locked' },
        ],
        1,
        1,
      ),
    );
    expect(state.lookup('changed')?.hash).toBe(itemHash(item('changed')));
    expect(state.lookup('new')?.hash).toBe(itemHash(item('new')));
    expect(state.lookup('skipme')?.hash).toBe(itemHash(item('skipme', 'old@x'))); // skipped: not marked as sent
    expect(hooks.beforeSend!(valid(6, item('changed')), JSON.stringify(item('changed')))).toBe('unchanged');
    state.close();
  });

  it('compares the text as sent first, and the canonical hash only when the text differs', () => {
    const state = SyncState.open(join(tempDir(), 's.db'), { create: true });
    const it1 = item('t');
    // a stored text hash equal to this row's text decides alone (the canonical one is not even computed)
    state.commit([{ memberId: 't', hash: 'not-the-canonical-hash', textHash: textHash(JSON.stringify(it1)) }]);
    const { hooks } = buildHooks({ state, changedOnly: true });
    expect(hooks.beforeSend!(valid(1, it1), JSON.stringify(it1))).toBe('unchanged');
    // the same item with its keys in another order: the text differs, the canonical hash does not match the bogus one
    const reordered = { email: it1.email, memberId: 't', isActive: true, createdAt: it1.createdAt };
    expect(hooks.beforeSend!(valid(2, reordered), JSON.stringify(reordered))).toBe('send');
    state.close();
  });

  it('a later row of a member is sent while an earlier row of it is on its way, even if it equals the stored hash', async () => {
    const state = SyncState.open(join(tempDir(), 's.db'), { create: true });
    const last = item('x', 'last-night@example.com');
    state.commit([{ memberId: 'x', hash: itemHash(last), textHash: textHash(JSON.stringify(last)) }]);
    const { hooks } = buildHooks({ state, changedOnly: true });
    const earlier = item('x', 'earlier-row@example.com');
    expect(hooks.beforeSend!(valid(10, earlier), JSON.stringify(earlier))).toBe('send');
    // row 20 equals last night's item, but row 10 will overwrite the server's copy first: it must go too
    expect(hooks.beforeSend!(valid(20, last), JSON.stringify(last))).toBe('send');
    await hooks.onSettled!(
      settledBatch([{ record: 10, memberId: 'x', outcome: 'confirmed', json: JSON.stringify(earlier) }], 0, 1),
    );
    expect(state.lookup('x')?.hash).toBe(itemHash(earlier));
    await hooks.onSettled!(
      settledBatch([{ record: 20, memberId: 'x', outcome: 'confirmed', json: JSON.stringify(last) }], 0, 1),
    );
    expect(state.lookup('x')?.hash).toBe(itemHash(last));
    expect(hooks.beforeSend!(valid(30, last), JSON.stringify(last))).toBe('unchanged');
    state.close();
  });

  it('--state without --changed-only sends everything and records it', async () => {
    const state = SyncState.open(join(tempDir(), 's.db'), { create: true });
    state.commit([{ memberId: 'a', hash: itemHash(item('a')), textHash: textHash(JSON.stringify(item('a'))) }]);
    const { hooks } = buildHooks({ state });
    expect(hooks.beforeSend!(valid(1, item('a')), JSON.stringify(item('a')))).toBe('send');
    await hooks.onSettled!(settledBatch([{ record: 1, memberId: 'a', outcome: 'confirmed' }], 0, 1));
    expect(state.summary().members).toBe(1);
    state.close();
  });
});
