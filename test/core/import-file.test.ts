/** importFile: the import use case's one entry point owns open → run → finish, and the command only draws. */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importFile, type ImportFileEvent, type ImportRequest } from '../../src/core/import/index.js';
import { validateFile } from '../../src/core/validate/validate-file.js';
import { MemoryTransport } from './memory-transport.js';
import { SyncState } from '../../src/state/sync-state.js';
import { stateError } from '../../src/state/state-errors.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const dir = mkdtempSync(join(tmpdir(), 'memberctl-import-file-'));

function csv(name: string, rows: number): string {
  const path = join(dir, name);
  const lines = ['memberId,isActive,createdAt'];
  for (let r = 1; r <= rows; r++) lines.push(`m${r},${r === 3 ? 'maybe' : 'true'},2024-01-02T03:04:05Z`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function request(path: string, extra: Partial<ImportRequest> = {}): ImportRequest {
  return {
    input: { path },
    sending: { batchSize: 4, maxBatchBytes: 1 << 20, concurrency: 2, retries: 0, timeoutMs: 1000 },
    state: { input: path, journal: { disabled: true } },
    ...extra,
  };
}

const target = {
  baseUrl: new URL('http://127.0.0.1:9/'),
  token: 't',
  name: 'http://127.0.0.1:9/',
  warnings: ['a target warning'],
};

/** Last night's good run, which wrote the rejects file at `rejectsPath` (its one record, night-1, invalid). */
async function lastNight(rejectsPath: string): Promise<void> {
  const path = join(dir, `night-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, '[{"memberId":"night-1","isActive":"maybe","createdAt":"2024-01-05T09:00:00Z"}]');
  const report = await importFile(request(path, { rejectsPath }), {
    openTarget: async () => target,
    connect: () => new MemoryTransport(),
  });
  expect(report.category).toBe('partial');
  expect(readFileSync(rejectsPath, 'utf8')).toContain('"memberId":"night-1"');
}

describe('importFile', () => {
  it('opens the input, the rejects file and the client, runs, closes them all, and says what became of the run', async () => {
    const path = csv('mixed.csv', 10);
    const rejectsPath = join(dir, 'mixed-rejects.ndjson');
    const transport = new MemoryTransport({ refuse: new Set(['m7']) });
    const events: ImportFileEvent[] = [];
    const report = await importFile(
      request(path, { rejectsPath }),
      { openTarget: async () => target, connect: () => transport },
      (e) => events.push(e),
    );
    expect(report.file).toBe(path);
    expect(report.category).toBe('partial');
    expect(report.summary).toMatchObject({ rows: 10, invalid: 1, rejected: 1, importedCount: 8, failed: 0 });
    expect(report.state).toMatchObject({ resumedRecords: 0, otherShards: 0, refreshed: 0, journalKept: false });
    expect(transport.closed).toBe(true);
    expect(transport.store.size).toBe(8);
    const rejects = readFileSync(rejectsPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { record: number; stage: string });
    expect(rejects.map((r) => [r.record, r.stage])).toEqual([
      [3, 'invalid'],
      [7, 'rejected'],
    ]);
    expect(events.filter((e) => e.type === 'warning')).toEqual([
      { type: 'warning', code: 'target', message: 'a target warning' },
    ]);
    expect(events.at(-1)?.type).toBe('finished');
  });

  it('summary.warnings counts every warning the run gave, also those before the pipeline (target, new state)', async () => {
    const path = csv('warned.csv', 4);
    const statePath = join(dir, 'warned.state');
    const events: ImportFileEvent[] = [];
    const report = await importFile(
      request(path, { state: { input: path, journal: { disabled: true }, changedOnly: true, statePath } }),
      { openTarget: async () => target, connect: () => new MemoryTransport() },
      (e) => events.push(e),
    );
    const warned = events.filter((e) => e.type === 'warning');
    expect(warned.map((e) => e.code)).toEqual(['target', 'state']);
    expect(report.summary.warnings).toBe(2);
  });

  it('the shrink guard compares records with records: 1,000 records of multi-line cells cut to 400 is refused by --max-shrink 10', async () => {
    const path = join(dir, 'notes.csv');
    const statePath = join(dir, 'notes.state');
    const exportOf = (count: number) => {
      const lines = ['memberId,isActive,createdAt,metadata.notes'];
      for (let r = 1; r <= count; r++)
        lines.push(`m${r},true,2024-01-02T03:04:05Z,"Gate code 4""2\nring twice\r\nback door"`);
      writeFileSync(path, `${lines.join('\n')}\n`);
    };
    const nightly = () =>
      request(path, {
        state: { input: path, journal: { disabled: true }, changedOnly: true, statePath, maxShrink: 0.1 },
      });
    const transport = new MemoryTransport();
    exportOf(1000);
    const first = await importFile(nightly(), { openTarget: async () => target, connect: () => transport });
    expect(first.summary).toMatchObject({ rows: 1000, importedCount: 1000 });
    exportOf(400); // 400 records, but 1,201 lines: more than 90% of the last run's 1,000
    const cut = await importFile(nightly(), { openTarget: async () => target, connect: () => transport }).catch(
      (error: unknown) => error,
    );
    expect(cut).toMatchObject({
      code: 'input-shrunk',
      message: expect.stringContaining('at most 400 rows, the last good run had 1,000'),
    });
    exportOf(950); // within the margin
    const next = await importFile(nightly(), { openTarget: async () => target, connect: () => transport });
    expect(next.summary).toMatchObject({ rows: 950, unchanged: 950 });
  });

  it("an input unreadable midway (exit 2) leaves last night's rejects file as it was, and says so", async () => {
    const path = join(dir, 'cut.json');
    writeFileSync(
      path,
      '[\n{"memberId":"c1","isActive":true,"createdAt":"2024-01-05T09:00:00Z"},\n' +
        '{"memberId":"c2","isActive":"maybe","createdAt":"2024-01-05T09:00:00Z"},\n{"memberId":"c3","isActive":tr',
    );
    const rejectsPath = join(dir, 'cut-rejects.ndjson');
    await lastNight(rejectsPath);
    const before = readFileSync(rejectsPath, 'utf8');
    const report = await importFile(request(path, { rejectsPath }), {
      openTarget: async () => target,
      connect: () => new MemoryTransport(),
    });
    expect(report.category).toBe('usage');
    expect(report.summary).toMatchObject({ rows: 2, invalid: 1, importedCount: 1 });
    expect(report.rejectsKept).toBe(true);
    expect(readFileSync(rejectsPath, 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((name) => name.includes('cut-rejects') && name.includes('tmp'))).toEqual([]);
  });

  it('a run that throws leaves an earlier rejects file as it was (its own is incomplete)', async () => {
    const path = csv('throws.csv', 10);
    const rejectsPath = join(dir, 'throws-rejects.ndjson');
    await lastNight(rejectsPath);
    const before = readFileSync(rejectsPath, 'utf8');
    const transport = new MemoryTransport();
    const run = importFile(
      request(path, {
        rejectsPath,
        state: {
          input: path,
          journal: { disabled: true },
          statePath: join(dir, 'throws.state'),
          changedOnly: true,
        },
      }),
      { openTarget: async () => target, connect: () => transport },
    );
    vi.spyOn(SyncState.prototype, 'commit').mockImplementation(() => {
      throw new Error('a bug in the state');
    });
    await expect(run).rejects.toThrow('a bug in the state');
    expect(readFileSync(rejectsPath, 'utf8')).toBe(before);
  });

  it('lists the same most common reasons as validate: one seen once is not left out (an unreadable record)', async () => {
    const path = join(dir, 'many-reasons.ndjson');
    const ok = (id: string, extra: object = {}) =>
      JSON.stringify({ memberId: id, isActive: true, createdAt: '2024-01-02T03:04:05Z', ...extra });
    const lines = [
      ...Array.from({ length: 3 }, (_, i) => ok(`a${i}`, { isActive: 'maybe' })),
      ...Array.from({ length: 3 }, (_, i) => ok(`b${i}`, { createdAt: 'soon' })),
      ...Array.from({ length: 2 }, (_, i) => ok(`c${i}`, { firstName: 42 })),
      ...Array.from({ length: 2 }, (_, i) => ok(`d${i}`, { isEmployee: 'perhaps' })),
      ...Array.from({ length: 2 }, (_, i) => JSON.stringify({ memberId: `e${i}`, isActive: true })),
      '{"memberId": "f0", cut here',
      ok('g0'),
    ];
    writeFileSync(path, `${lines.join('\n')}\n`);
    const validated = await validateFile({ path });
    const report = await importFile(request(path), {
      openTarget: async () => target,
      connect: () => new MemoryTransport(),
    });
    expect(validated.reasons.map((r) => r.reason)).toContain('unreadable record');
    expect(report.summary.topReasons.invalid).toEqual(validated.reasons);
  });

  it('a wrong input is reported before the target is resolved (no server contacted)', async () => {
    let asked = false;
    const run = importFile(request(join(dir, 'missing.csv')), { openTarget: async () => ((asked = true), target) });
    await expect(run).rejects.toMatchObject({ category: 'usage' });
    expect(asked).toBe(false);
  });

  it('a refused target leaves no rejects file half-made and the client unopened', async () => {
    const path = csv('target.csv', 3);
    const rejectsPath = join(dir, 'target-rejects.ndjson');
    const run = importFile(request(path, { rejectsPath }), {
      openTarget: async () => Promise.reject(new Error('no token')),
    });
    await expect(run).rejects.toThrow('no token');
    expect(existsSync(rejectsPath)).toBe(false);
  });

  it('requests that fail are not confirmed: category not-confirmed, the journal kept for --resume', async () => {
    const path = csv('fail.csv', 8);
    const transport = new MemoryTransport({ failRequest: (n) => n === 1 });
    const state = { input: path, journal: { path: join(dir, 'fail.journal') } };
    const report = await importFile(request(path, { state }), {
      openTarget: async () => target,
      connect: () => transport,
    });
    expect(report.category).toBe('not-confirmed');
    expect(report.summary.failed).toBeGreaterThan(0);
    expect(report.state).toMatchObject({ journalPath: join(dir, 'fail.journal'), journalKept: true });
  });

  it("a full disk on the state's last write (the run's row count, learned hashes) stops like the others: named, journal kept, --resume exact", async () => {
    const path = csv('final.csv', 10);
    const statePath = join(dir, 'final.state');
    const journal = join(dir, 'final.journal');
    const state = { input: path, statePath, journal: { path: journal } };
    const transport = new MemoryTransport();
    // SQLite's own error, as better-sqlite3 throws it when the disk fills during the finishing transaction
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    vi.spyOn(SyncState.prototype, 'finishWholeRun').mockImplementationOnce(() => {
      throw stateError(statePath, full);
    });
    const report = await importFile(request(path, { state }), {
      openTarget: async () => target,
      connect: () => transport,
    });
    expect(report.category).toBe('not-confirmed');
    expect(report.summary).toMatchObject({ rows: 10, invalid: 1, importedCount: 9, failed: 0, stopReason: 'output' });
    expect(report.summary.outputError).toMatchObject({ kind: 'state', file: statePath, errno: 'SQLITE_FULL' });
    expect(report.state).toMatchObject({ journalKept: true, absentFromInput: undefined });

    const again = new MemoryTransport();
    const resumed = await importFile(request(path, { state: { ...state, journal: { path: journal, resume: true } } }), {
      openTarget: async () => target,
      connect: () => again,
    });
    expect(resumed.category).toBe('partial');
    expect(resumed.summary).toMatchObject({ rows: 10, invalid: 1, importedCount: 9, failed: 0 });
    expect(resumed.summary.stopReason).toBeUndefined();
    expect(resumed.state).toMatchObject({ journalKept: false, absentFromInput: 0 });
    expect(transport.store.size).toBe(9);
    expect(again.store.size).toBe(0); // every record came back from the journal: nothing sent twice
    const saved = SyncState.open(statePath, { create: false });
    expect(saved.nightly.lastGoodRun()?.rows).toBe(10);
    saved.close();
  });

  it('a state that fails to close (an I/O error at its final checkpoint) keeps the summary: named, exit 4, journal kept and unlocked, nothing lost', async () => {
    const path = csv('closing.csv', 10);
    const statePath = join(dir, 'closing.state');
    const journal = join(dir, 'closing.journal');
    const state = { input: path, statePath, journal: { path: journal } };
    const transport = new MemoryTransport();
    // (SQLite itself keeps a failed close checkpoint quiet: the WAL stays and the next open replays it; this is
    // what any error from the close, better-sqlite3's or SQLite's, must come to)
    const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_FSYNC' });
    const realClose = SyncState.prototype.close;
    vi.spyOn(SyncState.prototype, 'close').mockImplementationOnce(function (this: SyncState) {
      realClose.call(this);
      throw ioError;
    });
    const report = await importFile(request(path, { state }), {
      openTarget: async () => target,
      connect: () => transport,
    });
    expect(report.category).toBe('not-confirmed');
    expect(report.summary).toMatchObject({ rows: 10, invalid: 1, importedCount: 9, failed: 0, stopReason: 'output' });
    expect(report.summary.outputError).toMatchObject({
      kind: 'state',
      file: statePath,
      errno: 'SQLITE_IOERR_FSYNC',
      message: expect.stringContaining(`writing the state file ${statePath} failed: SQLITE_IOERR_FSYNC`),
    });
    expect(report.state).toMatchObject({ journalKept: true, absentFromInput: 0 });
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    // every confirmation was committed before the close
    const saved = SyncState.open(statePath, { create: false });
    expect(saved.summary()).toMatchObject({ members: 9, lastGoodRows: 10 });
    saved.close();
  });

  it('a full state inside beforeSend (it writes the learned source hashes in batches) stops the run mid-way; counts add up; --resume exact', async () => {
    const path = csv('midway.csv', 40);
    const statePath = join(dir, 'midway.state');
    const journal = join(dir, 'midway.journal');
    const state = { input: path, statePath, changedOnly: true, journal: { path: journal } };
    const transport = new MemoryTransport();
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    // the 10th member's lookup fails: the same way out of beforeSend as its batched write of learned hashes
    let calls = 0;
    const real = SyncState.prototype.lookupTextHash;
    vi.spyOn(SyncState.prototype, 'lookupTextHash').mockImplementation(function (this: SyncState, memberId: string) {
      if (++calls === 10) throw stateError(statePath, full);
      return real.call(this, memberId);
    });
    const report = await importFile(
      request(path, {
        state,
        sending: { batchSize: 4, maxBatchBytes: 1 << 20, concurrency: 1, retries: 0, timeoutMs: 1000, graceMs: 1000 },
      }),
      { openTarget: async () => target, connect: () => transport },
    );
    const { summary } = report;
    expect(report.category).toBe('not-confirmed');
    expect(summary).toMatchObject({ invalid: 1, stopReason: 'output' });
    expect(summary.rows).toBeLessThan(40); // nothing more was read
    expect(summary.outputError).toMatchObject({ kind: 'state', file: statePath, errno: 'SQLITE_FULL' });
    expect(
      summary.invalid +
        summary.unchanged +
        summary.importedCount +
        summary.updatedCount +
        summary.skipped +
        summary.rejected +
        summary.failed,
    ).toBe(summary.rows);
    expect(summary.failed).toBeGreaterThan(0);
    vi.restoreAllMocks();

    const resumed = await importFile(request(path, { state: { ...state, journal: { path: journal, resume: true } } }), {
      openTarget: async () => target,
      connect: () => transport,
    });
    expect(resumed.summary).toMatchObject({ rows: 40, invalid: 1, failed: 0 });
    expect(resumed.summary.stopReason).toBeUndefined();
    expect(transport.store.size).toBe(39);
  });

  // A pipe or FIFO no one writes to holds the input's open (a FIFO's open(2)) or its first read: Ctrl-C must end
  // the run there, before any server is contacted, not wait for the input forever.
  it('a stop while the input is still opening (stdin that sends nothing) ends the run: cancelled, nothing contacted', async () => {
    const stdin = new PassThrough();
    const stop = new AbortController();
    let asked = false;
    const run = importFile(request('-', { input: { path: '-', format: 'csv', stdin }, stopSignal: stop.signal }), {
      openTarget: async () => ((asked = true), target),
    });
    setImmediate(() => stop.abort());
    await expect(run).rejects.toMatchObject({
      category: 'cancelled',
      code: 'interrupted',
      message: 'interrupted while waiting for stdin: nothing was read or sent',
    });
    expect(asked).toBe(false);
    stdin.end('memberId\nm1\n'); // the input that comes after all is closed unread
  });

  it.runIf(process.platform !== 'win32')('a stop while opening a FIFO no one writes to ends the run too', async () => {
    const fifo = join(dir, 'waiting.fifo');
    execFileSync('mkfifo', [fifo]);
    const stop = new AbortController();
    const run = importFile(request(fifo, { stopSignal: stop.signal }), { openTarget: async () => target });
    setImmediate(() => stop.abort());
    await expect(run).rejects.toMatchObject({
      category: 'cancelled',
      message: `interrupted while waiting for ${fifo}: nothing was read or sent`,
    });
    // A writer at last: the import's open (in the thread pool, maybe not started yet) and this one meet, both
    // return, and the import's empty input is closed unread. A blocking open waits for that reader to exist; a
    // non-blocking one would fail with ENXIO whenever the import's open had not begun.
    await (await open(fifo, 'w')).close();
  });
});
