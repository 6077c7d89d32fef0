/**
 * --resume end to end: the built CLI is killed with SIGKILL at several points of an import against a sandbox, while
 * a proxy holds requests in flight (holding-proxy.ts), then resumed; the sandbox must end exactly as after a clean run,
 * and the last summary must account for every row of the file across all runs. The runs that are not killed are
 * the whole command line in-process (test/cli/run-in-process.ts).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { readJournal } from '../../src/state/journal.js';
import { ResumeIndex } from '../../src/state/resume-index.js';
import { startHoldingProxy } from './holding-proxy.js';
import { isolatedEnv, spawnCli, tempDir } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

const boxes: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((box) => box.close()));
});

async function sandbox() {
  const box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
  boxes.push(box);
  return { box, env: isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken }) };
}

/** What the journal on disk says is settled right now (a torn last line is ignored, as --resume does). */
async function journaled(path: string): Promise<ResumeIndex> {
  const contents = existsSync(path) ? await readJournal(path) : undefined;
  return ResumeIndex.fromEntries(contents?.entries ?? []);
}

/** Polls until `check` holds: a state the test froze, so how long it takes does not matter. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let polls = 0; !(await check()); polls++) {
    if (polls > 6000) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const memberOfRecord = (r: number) => `m${(r * 7) % 250}`;

/** 600 rows over 250 members: members repeat (order matters), a few rows are invalid, one member is erased (skipped). */
function membersFile(dir: string): { file: string; rows: number; invalid: number } {
  const lines = ['memberId,email,firstName,isActive,createdAt'];
  let invalid = 0;
  for (let r = 1; r <= 600; r++) {
    const member = memberOfRecord(r);
    if (r % 97 === 0) {
      lines.push(`${member},not-an-email-${r},Bad${r},maybe,2024-01-05T09:00:00Z`);
      invalid++;
    } else lines.push(`${member},${member}.v${r}@example.com,Name${r},${r % 3 === 0},2024-01-05T09:00:00Z`);
  }
  const file = join(dir, 'members.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, rows: 600, invalid };
}

type Report = {
  rows: number;
  invalid: number;
  importedCount: number;
  updatedCount: number;
  skipped: number;
  skippedExamples: unknown[];
  rejected: number;
  failed: number;
  resumedRecords?: number;
};
const sum = (r: Report) => r.invalid + r.importedCount + r.updatedCount + r.skipped + r.rejected + r.failed;
const byId = (box: SandboxHandle) => box.members().sort((a, b) => a.memberId.localeCompare(b.memberId));
const ARGS = ['--batch-size', '25', '--concurrency', '3'];

describe('import --resume after kill -9', { timeout: 180_000 }, () => {
  it('killed before the first confirmation, mid-run and during the last batch, then resumed: same end state as a clean run', async () => {
    const dir = tempDir();
    const { file, rows, invalid } = membersFile(dir);
    const journal = `${file}.memberctl-journal`;

    const clean = await sandbox();
    clean.box.erase('m14');
    const cleanRun = await runInProcess(['import', file, '--json', ...ARGS, '--no-journal'], clean.env);
    expect(cleanRun.code).toBe(3); // invalid rows and one skipped member
    const cleanReport = JSON.parse(cleanRun.stdout) as Report;
    expect(sum(cleanReport)).toBe(rows);

    const { box, env } = await sandbox();
    box.erase('m14');
    const valid = rows - invalid;
    // Each run goes through a proxy that stops forwarding once the records settled before it plus those it let
    // through reach the point's threshold: the run then has requests in flight that never end, and the kill lands
    // exactly there, however slow the machine (nothing races a latency).
    const points: [string, number][] = [
      ['before the first confirmation', 0],
      ['mid-run', valid / 2],
      // what is left fits in the requests in flight (concurrency 3 × 25)
      ['during the last batch', valid - 75],
    ];
    // one proxy (so one target URL) for the three runs; only its threshold changes
    let threshold = 0;
    let settledBefore = 0;
    let forwarded = 0;
    const proxy = await startHoldingProxy(box.url, (records) => {
      if (settledBefore + forwarded >= threshold) return true;
      forwarded += records;
      return false;
    });
    boxes.push(proxy);
    const proxied = { ...env, MEMBERCTL_BASE_URL: proxy.url };
    let run = 0;
    for (const [point, pointThreshold] of points) {
      settledBefore = (await journaled(journal)).settled;
      forwarded = 0;
      threshold = pointThreshold;
      proxy.release();
      const args = ['import', file, ...ARGS, ...(run++ === 0 ? [] : ['--resume'])];
      const running = spawnCli(args, proxied);
      // held requests are in flight; everything answered before them is in the journal
      await eventually(
        point,
        async () =>
          proxy.held() > 0 &&
          proxy.answeredRecords() === forwarded &&
          (await journaled(journal)).settled === settledBefore + forwarded,
      );
      running.child.kill('SIGKILL');
      const killed = await running.result;
      expect(killed.code, `${point}: ${killed.stderr}`).toBeNull();
      expect(killed.stdout, point).toBe(''); // died before any summary
      // the journal never claims more than the server has: every record it settled as confirmed is stored
      const index = await journaled(journal);
      expect(index.settled, point).toBeGreaterThanOrEqual(threshold);
      for (let r = 1; r <= rows; r++) {
        const outcome = index.get(r)?.outcome;
        if (outcome === 'imported' || outcome === 'updated')
          expect(box.getMember(memberOfRecord(r)), `${point}: record ${r}`).toBeDefined();
      }
      if (existsSync(journal)) expect(statSync(journal).mode & 0o777).toBe(0o600);
    }
    expect((await journaled(journal)).settled).toBeGreaterThanOrEqual(valid - 75);

    // without --resume the journal is in the way: exit 2, naming both ways out
    threshold = Infinity; // the proxy passes everything from here on
    proxy.release();
    const refused = await runInProcess(['import', file, ...ARGS], proxied);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/journal of an earlier import .* exists/);
    expect(refused.stderr).toMatch(/--resume.*--restart/);

    const sentBefore = box.stats().itemsReceived;
    const final = await runInProcess(['import', file, ...ARGS, '--resume', '--json'], proxied);
    expect(final.stderr).toMatch(
      /^resuming from .*members\.csv\.memberctl-journal: \d+ records settled by [23] earlier runs \(\d+ imported, \d+ updated, \d+ skipped, 0 rejected\); sending the rest$/m,
    );
    expect(final.code).toBe(3);
    const report = JSON.parse(final.stdout) as Report;
    expect(report.rows).toBe(rows);
    expect(sum(report)).toBe(rows);
    expect(report.failed).toBe(0);
    expect(report.invalid).toBe(invalid);
    expect(report.importedCount + report.updatedCount).toBe(cleanReport.importedCount + cleanReport.updatedCount);
    expect(report.skipped).toEqual(cleanReport.skipped);
    expect(report.skippedExamples).toEqual(cleanReport.skippedExamples);
    expect(report.resumedRecords).toBeGreaterThan(0);
    // the last run sent only what the journal lacked (plus nothing twice beyond what was in flight at the kill)
    expect(box.stats().itemsReceived - sentBefore).toBeLessThan(valid);

    expect(byId(box)).toEqual(byId(clean.box));
    expect(existsSync(journal)).toBe(false); // nothing failed: the journal is gone
  });

  it('a torn last journal line (a write cut short) is ignored, and the resumed run completes', async () => {
    const dir = tempDir();
    const { file, rows, invalid } = membersFile(dir);
    const { box, env } = await sandbox();
    const first = await runInProcess(['import', file, ...ARGS, '--limit', '300', '--keep-journal'], env);
    expect(first.code).toBe(3);
    const journal = `${file}.memberctl-journal`;
    writeFileSync(journal, `${readFileSync(journal, 'utf8')}{"t":"batch","ok":"301-600","imp":3`);
    const resumed = await runInProcess(['import', file, ...ARGS, '--resume', '--json'], env);
    const report = JSON.parse(resumed.stdout) as Report;
    expect(sum(report)).toBe(rows);
    expect(report.invalid).toBe(invalid);
    expect(report.failed).toBe(0);
    expect(report.resumedRecords).toBe(300 - 3); // the first 300 records held 3 invalid ones
    expect(box.stats().itemsReceived).toBe(rows - invalid); // every valid record sent exactly once over both runs
  });

  it('--resume with another file of the same name is exit 2; --restart starts over', async () => {
    const dir = tempDir();
    const { file } = membersFile(dir);
    const { box, env } = await sandbox();
    box.setFaults({ failNext: [{ status: 500 }, { status: 500 }, { status: 500 }] });
    const failing = await runInProcess(['import', file, ...ARGS, '--retries', '0', '--concurrency', '1'], env);
    expect(failing.code).toBe(4);
    expect(failing.stdout).toMatch(/journal kept: .*--resume/);
    writeFileSync(file, readFileSync(file, 'utf8').replace('m7.v1@', 'm7.V1@'));
    const wrong = await runInProcess(['import', file, '--resume'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/belongs to another file/);
    expect(wrong.stderr).toMatch(/--restart/);
    const restarted = await runInProcess(['import', file, ...ARGS, '--restart', '--json'], env);
    expect(restarted.code).toBe(3);
    expect(JSON.parse(restarted.stdout)).toMatchObject({ rows: 600, failed: 0 });
  });

  it('standard input keeps no journal; --resume on it is exit 2', async () => {
    const { env } = await sandbox();
    const csv = 'memberId,isActive,createdAt\na1,true,2024-01-05T09:00:00Z\n';
    const piped = await runInProcess(['import', '-', '--format', 'csv'], env, csv);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toMatch(/standard input: no journal/);
    const resume = await runInProcess(['import', '-', '--format', 'csv', '--resume'], env, csv);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/--resume needs a file/);
  });
});
