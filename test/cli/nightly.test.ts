/**
 * A week of nightly syncs, as cron runs them: the same command every night against a sandbox that keeps its
 * members in a --data file and is restarted for every run (the CLI's --sandbox --sandbox-data starts one per run;
 * the test starts its own on the same file to look). After every night the server's members are compared with the
 * export: each member of the last good export exactly as its row says (cleared cells null), each member the CRM
 * removed still there with its last values (the API has no delete) and listed by `state absent`.
 * The bad nights (an export cut mid-row, one cut within the shrink guard's margin, a header-only one) must send
 * nothing wrong, exit non-zero and leave an error or warn line in the log; a server that lost members is healed by
 * --refresh-after. Each night is the whole command line in-process (test/cli/run-in-process.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

const HEADER = 'memberId,isActive,createdAt,email,phone,firstName,metadata.tier';
type Row = { id: string; email: string; phone: string; firstName: string; tier: string };

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'sandbox.ndjson');
const state = join(dir, 'crm.state');
const exportFile = join(dir, 'crm-export.csv');
const env = isolatedEnv();

const line = (r: Row) => `${r.id},true,2024-03-01,${r.email},${r.phone},${r.firstName},${r.tier}`;
const writeExport = (rows: Row[], tail = '\n') =>
  writeFileSync(exportFile, `${HEADER}\n${rows.map(line).join('\n')}${tail}`);
/** What the server must hold for a row sent with --empty-as-null: every column given, an empty one as null. */
const expected = (r: Row) => ({
  memberId: r.id,
  isActive: true,
  createdAt: '2024-03-01T00:00:00.000Z',
  email: r.email || null,
  phone: r.phone || null,
  firstName: r.firstName || null,
  metadata: { tier: r.tier || null },
});

function nightly(extra: string[] = []) {
  const args = [
    'import',
    exportFile,
    '--sandbox',
    '--sandbox-data',
    data,
    '--changed-only',
    '--state',
    state,
    '--require-state',
  ];
  return runInProcess(
    [...args, '--no-journal', '--empty-as-null', '--refresh-after', '30', '--json', '--log-format', 'json', ...extra],
    env,
  );
}

type LogLine = {
  level: string;
  event: string;
  code?: string;
  hint?: string;
  exitCode?: number;
  runId: string;
  pid: number;
} & Record<string, unknown>;
const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as LogLine);
/** The cron guide's alert: a non-zero exit, or an error line in the log. */
const alerted = (code: number | null, stderr: string) =>
  code !== 0 || logLines(stderr).some((l) => l.level === 'error');

/** The server's members after a restart on the same data file. */
async function serverMembers(): Promise<Map<string, unknown>> {
  const box = await startSandbox({ dataFile: data });
  try {
    return new Map(box.members().map((m) => [m.memberId, m]));
  } finally {
    await box.close();
  }
}

async function expectServerMatches(current: Row[], removed: Map<string, Row>): Promise<void> {
  const server = await serverMembers();
  expect(server.size).toBe(current.length + removed.size);
  for (const r of current) expect(server.get(r.id), r.id).toEqual(expected(r));
  for (const r of removed.values()) expect(server.get(r.id), r.id).toEqual(expected(r));
}

let rows: Row[] = Array.from({ length: 3000 }, (_, i) => ({
  id: `C-${String(i + 1).padStart(5, '0')}`,
  email: `c${i + 1}@example.com`,
  phone: `+4930${1000000 + i}`,
  firstName: `First${i + 1}`,
  tier: i % 3 === 0 ? 'Gold' : 'Silver',
}));
const removed = new Map<string, Row>();

describe('a week of nightly syncs', () => {
  it('keeps the server equal to the last good export, night after night', { timeout: 240_000 }, async () => {
    // night 0: the state is not there yet; --require-state (for cron) refuses rather than resend everything
    writeExport(rows);
    const missing = await nightly();
    expect(missing.code).toBe(2);
    expect(logLines(missing.stderr).find((l) => l.event === 'error')).toMatchObject({
      code: 'state-missing',
      hint: expect.stringContaining(`memberctl state init --state ${state}`),
    });

    // night 1: the first run, without --require-state: announced, every member sent
    const first = await runInProcess(
      [
        'import',
        exportFile,
        '--sandbox',
        '--sandbox-data',
        data,
        '--changed-only',
        '--state',
        state,
        '--no-journal',
        '--empty-as-null',
        '--json',
        '--log-format',
        'json',
      ],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    expect(logLines(first.stderr).find((l) => l.event === 'warning')?.message).toContain('every member will be sent');
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: 3000, importedCount: 3000, absentFromInput: 0 });
    await expectServerMatches(rows, removed);

    // night 2: edits, cleared e-mails and phones, new members, removals, another order
    for (const r of rows.filter((_, i) => i % 19 === 3)) removed.set(r.id, { ...r });
    rows = rows.filter((r) => !removed.has(r.id));
    for (let i = 0; i < rows.length; i += 20) rows[i]!.firstName = `Renamed${i}`;
    for (let i = 5; i < rows.length; i += 15) rows[i]!.email = '';
    for (let i = 7; i < rows.length; i += 25) rows[i]!.phone = '';
    for (let i = 0; i < 60; i++)
      rows.push({ id: `N-${i}`, email: `n${i}@example.com`, phone: '', firstName: `New${i}`, tier: 'Bronze' });
    rows.reverse();
    writeExport(rows);
    const second = await nightly();
    expect(second.code, second.stderr).toBe(0);
    const report2 = JSON.parse(second.stdout);
    expect(report2.absentFromInput).toBe(removed.size);
    expect(report2.importedCount).toBe(60);
    expect(report2.unchanged + report2.updatedCount + report2.importedCount).toBe(rows.length);
    await expectServerMatches(rows, removed);
    const absent = await runInProcess(['state', 'absent', '--state', state, '--json'], env);
    expect((JSON.parse(absent.stdout).members as { memberId: string }[]).map((m) => m.memberId).sort()).toEqual(
      [...removed.keys()].sort(),
    );
    const listed = await runInProcess(['state', 'absent', '--state', state, '--out', join(dir, 'absent.csv')], env);
    expect(listed.code).toBe(0);
    const csv = readFileSync(join(dir, 'absent.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('memberId,absentSince');
    expect(
      csv
        .slice(1)
        .map((text) => text.split(',')[0])
        .sort(),
    ).toEqual([...removed.keys()].sort());

    // night 3: the export cut mid-row at 60%: refused before sending, naming both counts
    const full = `${HEADER}\n${rows.map(line).join('\n')}\n`;
    writeFileSync(exportFile, full.slice(0, Math.floor(full.length * 0.6)));
    const cut = await nightly();
    expect(cut.code).toBe(2);
    expect(alerted(cut.code, cut.stderr)).toBe(true);
    const refusal = logLines(cut.stderr).find((l) => l.event === 'error');
    expect(refusal).toMatchObject({
      code: 'input-shrunk',
      message: expect.stringContaining(`the last good run had ${rows.length.toLocaleString('en-US')}`),
    });
    expect(logLines(cut.stderr).at(-1)).toMatchObject({ event: 'finished', exitCode: 2, level: 'error' });
    await expectServerMatches(rows, removed);

    // night 4: cut within the guard's margin, inside the last row's tier: "Gold" must not reach the server as "Go"
    const gold = rows.findLastIndex((r, i) => i < rows.length - 20 && r.tier === 'Gold');
    rows[gold]!.firstName = 'ChangedBeforeTheCut'; // so the cut row differs from what the server has
    writeFileSync(
      exportFile,
      `${HEADER}\n${rows
        .slice(0, gold + 1)
        .map(line)
        .join('\n')}`.slice(0, -2),
    );
    const held = await nightly();
    expect(held.code).toBe(3);
    expect(alerted(held.code, held.stderr)).toBe(true);
    expect(
      logLines(held.stderr).some((l) => l.level === 'warn' && String(l.message).includes('ends without a line break')),
    ).toBe(true);
    expect(JSON.parse(held.stdout)).toMatchObject({ invalid: 1 });
    rows[gold]!.firstName = `First-${gold}`; // the next export has the row whole, with a name of its own
    const serverAfterCut = await serverMembers();
    expect(serverAfterCut.get(rows[gold]!.id)).toMatchObject({ metadata: { tier: 'Gold' } });
    expect(serverAfterCut.get(rows[gold]!.id)).not.toMatchObject({ firstName: 'ChangedBeforeTheCut' });

    // night 5: a header and no rows
    writeFileSync(exportFile, `${HEADER}\n`);
    const empty = await nightly();
    expect(empty.code).toBe(2);
    expect(alerted(empty.code, empty.stderr)).toBe(true);
    expect(logLines(empty.stderr).find((l) => l.event === 'error')).toMatchObject({
      code: 'input-shrunk',
      message: expect.stringContaining('no rows'),
    });

    // night 6: the good export again (with the cut row's new name); the server had lost members (killed -9)
    writeExport(rows);
    const store = readFileSync(data, 'utf8').split('\n').filter(Boolean);
    const lost = new Set(rows.slice(0, 200).map((r) => r.id));
    const kept = store.filter(
      (text) => !lost.has((JSON.parse(text) as { member?: { memberId: string } }).member?.memberId ?? ''),
    );
    const trailer = JSON.parse(kept.pop()!) as { end: { members: number } };
    trailer.end.members -= lost.size; // the store file's own count of its members, so it loads
    writeFileSync(data, `${[...kept, JSON.stringify(trailer)].join('\n')}\n`);
    expect((await serverMembers()).size).toBe(rows.length + removed.size - lost.size);
    // ... and the state's confirmations are 31 days old: --refresh-after 30 sends them again
    const db = new Database(state);
    db.prepare('UPDATE member_state SET updated_at = updated_at - ?').run(31 * 24 * 60 * 60 * 1000);
    db.close();
    const refresh = await nightly();
    expect(refresh.code, refresh.stderr).toBe(0);
    const report6 = JSON.parse(refresh.stdout);
    expect(report6.refreshed).toBeGreaterThanOrEqual(rows.length - 1);
    expect(report6.absentFromInput).toBe(removed.size);
    await expectServerMatches(rows, removed);
    const lines6 = logLines(refresh.stderr);
    expect(new Set(lines6.map((l) => l.runId)).size).toBe(1);
    expect(lines6.at(-1)).toMatchObject({
      event: 'finished',
      level: 'info',
      exitCode: 0,
      absentFromInput: removed.size,
    });

    // night 7: nothing changed: nothing sent, a quiet log
    const quiet = await nightly();
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ unchanged: rows.length, requests: 0 });
    expect(alerted(quiet.code, quiet.stderr)).toBe(false);
    await expectServerMatches(rows, removed);
  });

  it('a damaged state says how to recover, and state show and state reset work on it', {
    timeout: 60_000,
  }, async () => {
    const damaged = join(dir, 'damaged.state');
    const small = join(dir, 'small.csv');
    writeFileSync(small, `${HEADER}\n${rows.slice(0, 50).map(line).join('\n')}\n`);
    const args = ['import', small, '--sandbox', '--changed-only', '--state', damaged, '--no-journal', '--json'];
    expect((await runInProcess(args, env)).code).toBe(0);
    truncateSync(damaged, Math.floor(statSync(damaged).size / 2));

    const refused = await runInProcess(args, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/state file .*damaged\.state is damaged \(SQLITE_CORRUPT/);
    expect(refused.stderr).toContain(`memberctl state reset --state ${damaged}`);
    expect(refused.stderr).not.toContain('permissions');

    const show = await runInProcess(['state', 'show', '--state', damaged], env);
    expect(show.code).toBe(2);
    expect(show.stdout).toMatch(/damaged +state file .* is damaged/);
    const reset = await runInProcess(['state', 'reset', '--state', damaged], env);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/moved to .*damaged\.state\.damaged-/);
    const again = await runInProcess(args, env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 0 });
  });
});
