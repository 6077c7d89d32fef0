/**
 * Duplicate memberIds (issue 24 item 4): validate and import count the memberIds whose rows differ, the last row
 * wins by default, and --duplicates refuse makes each later differing row invalid — the same verdicts whole, in
 * shards, resumed, and when --changed-only settles a row before mapping it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFile, type ImportFileEvent, type ImportRequest } from '../../src/core/import/index.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { MemoryTransport } from './memory-transport.js';
import { DuplicateMembers } from '../../src/core/duplicates/duplicate-members.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-duplicates-'));
const target = { baseUrl: new URL('http://127.0.0.1:9/'), token: 't', name: 'http://127.0.0.1:9/', warnings: [] };

/** Line 2 onwards: A1 twice with other content, B1 twice the same, A1 a third time as on its first row, C1 once. */
const ROWS = [
  'A1,ann@example.com,Ann',
  'B1,bob@example.com,Bob',
  'A1,other.person@example.com,Alex',
  'B1,bob@example.com,Bob',
  'C1,cy@example.com,Cy',
  'A1,ann@example.com,Ann',
];

function csv(name: string, rows: readonly string[] = ROWS): string {
  const path = join(dir, name);
  const lines = ['memberId,email,firstName,isActive,createdAt', ...rows.map((r) => `${r},true,2024-01-02T03:04:05Z`)];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function request(path: string, extra: Partial<ImportRequest> = {}, duplicates?: 'refuse'): ImportRequest {
  return {
    input: { path, duplicates },
    sending: { batchSize: 2, maxBatchBytes: 1 << 20, concurrency: 2, retries: 0, timeoutMs: 1000 },
    state: { input: path, journal: { disabled: true } },
    ...extra,
  };
}

const long = 'x'.repeat(260);
const refusal = 'memberId "A1" also on line 2, with other content (--duplicates refuse)';

describe('validate', () => {
  it('counts the memberIds whose rows differ, names them with their lines, and counts identical repeats apart', async () => {
    const stats = await validateFile({ path: csv('last-wins.csv') });
    expect(stats).toMatchObject({ rows: 6, valid: 6, invalid: 0 });
    expect(stats.duplicateMembers).toEqual({
      rule: 'last-wins',
      count: 1,
      sample: [{ memberId: 'A1', lines: [2, 4] }],
      laterRows: 1,
      identicalRows: 2,
    });
  });

  it("--duplicates refuse: each later row that differs from its memberId's first row is invalid, with the reason, in the rejects file", async () => {
    const rejectsPath = join(dir, 'refused.csv');
    const stats = await validateFile({ path: csv('refuse.csv'), duplicates: 'refuse', rejectsPath });
    expect(stats).toMatchObject({ rows: 6, valid: 5, invalid: 1 });
    expect(stats.sample).toEqual([
      { record: 3, line: 4, memberId: 'A1', issues: [expect.objectContaining({ path: '', message: refusal })] },
    ]);
    expect(stats.reasons).toEqual([{ reason: 'memberId also on an earlier line, with other content', count: 1 }]);
    expect(stats.duplicateMembers).toMatchObject({ rule: 'refuse', count: 1, laterRows: 1 });
    const rejects = readFileSync(rejectsPath, 'utf8').trim().split('\n');
    expect(rejects).toHaveLength(2);
    expect(rejects[1]).toContain('A1,other.person@example.com,Alex,true,2024-01-02T03:04:05Z,invalid,');
  });

  it('an invalid row takes part too: a later row of its memberId with other content is refused, and keeps its own issues', async () => {
    const stats = await validateFile({
      path: csv('invalid-first.csv', [
        `D1,${long}@example.com,Dee`,
        'D1,dee@example.com,Dee',
        `D1,${long}@example.org,Dee`,
      ]),
      duplicates: 'refuse',
    });
    expect(stats).toMatchObject({ rows: 3, valid: 0, invalid: 3 });
    expect(stats.sample[2]!.issues.map((issue) => issue.path)).toEqual(['', 'email']);
  });
});

describe('import', () => {
  it('last-wins: every row is sent in file order, the server keeps the last, and the report names the memberId', async () => {
    const transport = new MemoryTransport();
    const events: ImportFileEvent[] = [];
    const report = await importFile(
      request(csv('import.csv')),
      { openTarget: async () => target, connect: () => transport },
      (event) => events.push(event),
    );
    expect(report.summary).toMatchObject({ rows: 6, invalid: 0, failed: 0 });
    expect(transport.store.get('A1')?.email).toBe('ann@example.com');
    expect(report.summary.duplicateMembers).toMatchObject({ count: 1, sample: [{ memberId: 'A1', lines: [2, 4] }] });
    // the JSON log's finished line carries it too
    const finished = events.find((event) => event.type === 'finished');
    expect(finished?.type === 'finished' && finished.summary.duplicateMembers).toEqual(report.summary.duplicateMembers);
  });

  it('refuse: the later differing row is invalid and never sent; identical repeats are sent as before', async () => {
    const rows = ['A1,ann@example.com,Ann', 'A1,other.person@example.com,Alex', 'B1,bob@example.com,Bob'];
    const transport = new MemoryTransport();
    const report = await importFile(request(csv('import-refuse.csv', rows), {}, 'refuse'), {
      openTarget: async () => target,
      connect: () => transport,
    });
    expect(report.summary).toMatchObject({ rows: 3, invalid: 1, importedCount: 2, failed: 0 });
    expect(report.summary.topReasons.invalid).toEqual([
      { reason: 'memberId also on an earlier line, with other content', count: 1 },
    ]);
    expect(transport.store.get('A1')?.email).toBe('ann@example.com');
  });

  it('--shard: duplicates stay in one shard; the shards together report what the whole run reports', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `M${i % 20},m${i}@example.com,N${i % 40}`);
    const path = csv('sharded.csv', rows);
    const whole = await validateFile({ path, duplicates: 'refuse' });
    const shards = await Promise.all(
      [0, 1, 2].map((index) =>
        importFile(
          request(path, { state: { input: path, shard: { index, count: 3 }, journal: { disabled: true } } }, 'refuse'),
          { openTarget: async () => target, connect: () => new MemoryTransport() },
        ),
      ),
    );
    const sum = (pick: (s: (typeof shards)[number]) => number) => shards.reduce((total, s) => total + pick(s), 0);
    expect(sum((s) => s.summary.duplicateMembers!.count)).toBe(whole.duplicateMembers.count);
    expect(sum((s) => s.summary.invalid)).toBe(whole.invalid);
    expect(sum((s) => s.summary.rows)).toBe(60);
    expect(whole.duplicateMembers.count).toBe(20);
  });

  it('--resume reaches the verdicts of a whole run: the journal restores confirmed rows, the check still sees them', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `M${i % 10},m${i}@example.com,N${i % 20}`);
    const path = csv('resume.csv', rows);
    const journal = join(dir, 'resume.journal');
    const state = { input: path, journal: { path: journal } };
    const first = await importFile(request(path, { state }, 'refuse'), {
      openTarget: async () => target,
      connect: () => new MemoryTransport({ failRequest: (n) => n > 2 }),
    });
    expect(first.summary.failed).toBeGreaterThan(0);
    const again = new MemoryTransport();
    const resumed = await importFile(
      request(path, { state: { ...state, journal: { path: journal, resume: true } } }, 'refuse'),
      {
        openTarget: async () => target,
        connect: () => again,
      },
    );
    expect(resumed.state.resumedRecords).toBeGreaterThan(0);
    const whole = await validateFile({ path, duplicates: 'refuse' });
    // every later row of M0…M9 differs (its email): 10 memberIds, 20 rows refused, also those whose first row the
    // journal restored without sending it
    expect(whole).toMatchObject({ invalid: 20, duplicateMembers: { count: 10, laterRows: 20 } });
    expect(resumed.summary).toMatchObject({ rows: 30, invalid: 20, failed: 0 });
    expect(resumed.summary.duplicateMembers).toEqual(first.summary.duplicateMembers);
    expect(resumed.summary.duplicateMembers).toEqual(whole.duplicateMembers);
  });

  it('--changed-only: a later differing row found unchanged before it is mapped is still refused', async () => {
    // A1's first row is invalid, so nothing of A1 is on its way when its second row is read: that row's cells hash
    // as the state's (the night before sent it), and --changed-only settles it without mapping it
    const rows = [`A1,${long}@example.com,Ann`, 'A1,other.person@example.com,Alex'];
    const path = csv('changed-only.csv', rows);
    const statePath = join(dir, 'changed-only.state');
    const state = { input: path, statePath, changedOnly: true, journal: { disabled: true } };
    const night = await importFile(request(path, { state }), {
      openTarget: async () => target,
      connect: () => new MemoryTransport(),
    });
    expect(night.summary).toMatchObject({ rows: 2, invalid: 1, importedCount: 1 });
    const unchanged = await importFile(request(path, { state }), {
      openTarget: async () => target,
      connect: () => new MemoryTransport(),
    });
    expect(unchanged.summary).toMatchObject({ rows: 2, invalid: 1, unchanged: 1 });
    expect(unchanged.summary.duplicateMembers).toMatchObject({ count: 1, sample: [{ memberId: 'A1', lines: [2, 3] }] });
    const refused = await importFile(request(path, { state }, 'refuse'), {
      openTarget: async () => target,
      connect: () => new MemoryTransport(),
    });
    expect(refused.summary).toMatchObject({ rows: 2, invalid: 2, unchanged: 0, failed: 0 });
    expect(refused.summary.topReasons.invalid.map((r) => r.reason)).toContain(
      'memberId also on an earlier line, with other content',
    );
  });
});

describe('--duplicates off', () => {
  it('checks nothing and keeps no table: every row passes, nothing is counted', () => {
    const off = new DuplicateMembers('off');
    for (let line = 2; line < 2000; line++) expect(off.observe({ line, raw: [`x${line}`] }, `m${line % 7}`)).toBe(0);
    expect(off.report()).toEqual({ rule: 'off', count: 0, sample: [], laterRows: 0, identicalRows: 0 });
  });
});
