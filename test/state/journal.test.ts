import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRanges, forEachInRanges, type JournalHeader } from '../../src/state/journal-format.js';
import { JournalCorruptError, JournalWriter, readJournal } from '../../src/state/journal.js';
import { ResumeIndex } from '../../src/state/resume-index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memberctl-journal-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const header: JournalHeader = {
  memberctl: 'journal',
  v: 1,
  input: { path: '/data/m.csv', size: 10, sha256: 'ab' },
  shard: null,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const batch = (ok: number[], imp: number, upd: number, skip: [number, string][] = [], rej: [number, string][] = []) =>
  ({ t: 'batch', ok: encodeRanges(ok), imp, upd, skip, rej }) as const;

describe('record ranges', () => {
  it('round-trip any set of record numbers', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5000 })), (records) => {
        const back: number[] = [];
        forEachInRanges(encodeRanges(records), (r) => back.push(r));
        expect(back).toEqual([...new Set(records)].sort((a, b) => a - b));
      }),
    );
    expect(encodeRanges([5, 1, 2, 3, 7, 9, 10])).toBe('1-3,5,7,9-10');
  });

  it('refuses malformed ranges', () => {
    for (const bad of ['0', '3-1', 'x', '1-', '1,,2'])
      expect(() => forEachInRanges(bad, () => undefined), bad).toThrow();
  });
});

describe('journal file', () => {
  it('is created 0600 with its header, appends synced entries, and reads back', async () => {
    const path = join(tempDir(), 'm.csv.memberctl-journal');
    const writer = await JournalWriter.create(path, header);
    await Promise.all([
      writer.append(batch([1, 2, 3], 2, 1)),
      writer.append(batch([5], 0, 0, [[4, 'locked']], [[6, 'bad email']])),
    ]);
    await writer.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const contents = (await readJournal(path))!;
    expect(contents.header).toEqual(header);
    expect(contents.tornTail).toBe(false);
    expect(contents.entries.map((e) => e.t)).toEqual(['run', 'batch', 'batch']);
    const index = ResumeIndex.fromEntries(contents.entries);
    expect(index.counts).toEqual({ imported: 2, updated: 2, skipped: 1, rejected: 1 });
    expect([1, 2, 3, 4, 5, 6, 7].map((r) => index.get(r)?.outcome)).toEqual([
      'imported',
      'imported',
      'updated',
      'skipped',
      'updated',
      'rejected',
      undefined,
    ]);
    expect(index.get(6)).toEqual({ outcome: 'rejected', reason: 'bad email' });
    expect(index.runs).toBe(1);
  });

  it('tightens the mode of a file that was already there', async () => {
    const path = join(tempDir(), 'j');
    writeFileSync(path, 'old', { mode: 0o644 });
    const writer = await JournalWriter.create(path, header);
    await writer.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('ignores a torn last line, and appending after reopen cuts it off first', async () => {
    const path = join(tempDir(), 'j');
    const writer = await JournalWriter.create(path, header);
    await writer.append(batch([1, 2], 1, 1));
    await writer.close();
    appendFileSync(path, '{"t":"batch","ok":"3-4","imp":2,"up'); // a write cut short by kill -9
    const torn = (await readJournal(path))!;
    expect(torn.tornTail).toBe(true);
    expect(ResumeIndex.fromEntries(torn.entries).settled).toBe(2);

    const again = await JournalWriter.reopen(path, torn.validBytes, 2);
    await again.append(batch([3], 1, 0));
    await again.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('"up\n');
    const healed = (await readJournal(path))!;
    expect(healed.tornTail).toBe(false);
    const index = ResumeIndex.fromEntries(healed.entries);
    expect(index.settled).toBe(3);
    expect(index.get(4)).toBeUndefined();
    expect(index.runs).toBe(2);
  });

  it('a torn header counts as no header (nothing was confirmed yet)', async () => {
    const path = join(tempDir(), 'j');
    writeFileSync(path, '{"memberctl":"journal","v":1,"inp');
    expect(await readJournal(path)).toEqual({ entries: [], validBytes: 0, tornTail: true });
    writeFileSync(path, '');
    expect((await readJournal(path))!.header).toBeUndefined();
  });

  it('a damaged line in the middle is an error naming the line', async () => {
    const path = join(tempDir(), 'j');
    writeFileSync(path, `${JSON.stringify(header)}\nnot json\n{"t":"run","n":1}\n`);
    await expect(readJournal(path)).rejects.toThrow(JournalCorruptError);
    await expect(readJournal(path)).rejects.toThrow(/line 2/);
    writeFileSync(path, '{"some":"other file"}\n');
    await expect(readJournal(path)).rejects.toThrow(/line 1: not a memberctl journal header/);
  });

  it('skips entry kinds a newer version may add', async () => {
    const path = join(tempDir(), 'j');
    writeFileSync(path, `${JSON.stringify(header)}\n{"t":"future","x":1}\n${JSON.stringify(batch([1], 1, 0))}\n`);
    expect(ResumeIndex.fromEntries((await readJournal(path))!.entries).settled).toBe(1);
  });

  it('returns undefined when there is no journal', async () => {
    expect(await readJournal(join(tempDir(), 'none'))).toBeUndefined();
  });

  it('an append resolves only after the header is on disk before it, and remove() deletes the file', async () => {
    const path = join(tempDir(), 'j');
    const writer = await JournalWriter.create(path, header);
    await writer.append(batch([1], 1, 0));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[0]).toBe(JSON.stringify(header));
    expect(JSON.parse(lines[2]!)).toMatchObject({ t: 'batch', ok: '1' });
    await writer.remove();
    expect(() => statSync(path)).toThrow();
  });

  it('an unwritable place fails at create, before anything could be sent', async () => {
    await expect(JournalWriter.create(join(tempDir(), 'no-such-dir', 'j'), header)).rejects.toThrow(/ENOENT/);
  });

  it('many concurrent appends all land, in order, each once (group commit)', async () => {
    const path = join(tempDir(), 'j');
    const writer = await JournalWriter.create(path, header);
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer.append(batch([i + 1], 1, 0))));
    await writer.close();
    const entries = (await readJournal(path))!.entries.filter((e) => e.t === 'batch');
    expect(entries.map((e) => (e.t === 'batch' ? Number(e.ok) : 0))).toEqual(
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
  });
});
