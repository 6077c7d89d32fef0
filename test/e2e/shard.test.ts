/** --shard i/n end to end: three processes at once split one file by memberId; together they are one clean run. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { shardOf } from '../../src/state/shard.js';
import { isolatedEnv, runCli, tempDir } from './import-helper.js';

const boxes: SandboxHandle[] = [];
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((box) => box.close()));
});

async function sandbox() {
  const box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
  boxes.push(box);
  return { box, env: isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken }) };
}

type Report = {
  rows: number;
  invalid: number;
  unchanged?: number;
  importedCount: number;
  updatedCount: number;
  skipped: number;
  rejected: number;
  failed: number;
  otherShards: number;
  shard: { index: number; count: number };
};
const sum = (r: Report) =>
  r.invalid + (r.unchanged ?? 0) + r.importedCount + r.updatedCount + r.skipped + r.rejected + r.failed;
const byId = (box: SandboxHandle) => box.members().sort((a, b) => a.memberId.localeCompare(b.memberId));

describe('import --shard i/n', { timeout: 180_000 }, () => {
  it('3 shards run together hold exactly the whole file, each row once, in per-member order', async () => {
    const dir = tempDir();
    const file = join(dir, 'members.csv');
    const lines = ['memberId,email,firstName,isActive,createdAt'];
    const memberIds: (string | undefined)[] = [];
    for (let r = 1; r <= 300; r++) {
      const id = `s-${(r * 13) % 110}`;
      if (r % 50 === 0) {
        lines.push(`,nobody${r}@example.com,NoId,true,2024-01-05T09:00:00Z`); // invalid, no memberId: shard by record number
        memberIds.push(undefined);
      } else if (r % 41 === 0) {
        lines.push(`${id},${id}@example.com,Bad,maybe,2024-01-05T09:00:00Z`); // invalid with a memberId: its member's shard
        memberIds.push(id);
      } else {
        lines.push(`${id},${id}.r${r}@example.com,Row${r},true,2024-01-05T09:00:00Z`);
        memberIds.push(id);
      }
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const invalid = memberIds.filter((_, i) => (i + 1) % 50 === 0 || (i + 1) % 41 === 0).length;

    const clean = await sandbox();
    const cleanRun = await runCli(['import', file, '--json', '--no-journal', '--batch-size', '7'], clean.env);
    expect(cleanRun.code).toBe(3);

    const { box, env } = await sandbox();
    const state = join(dir, 'shared.state');
    const shardArgs = (i: number, ...extra: string[]) => [
      'import',
      file,
      '--shard',
      `${i}/3`,
      '--json',
      '--batch-size',
      '7',
      '--concurrency',
      '4',
      '--state',
      state,
      ...extra,
    ];
    const runs = await Promise.all([0, 1, 2].map((i) => runCli(shardArgs(i, '--keep-journal'), env)));
    const reports = runs.map((run, i) => {
      expect(run.code, run.stderr).toBe(3);
      return JSON.parse(run.stdout) as Report;
    });
    reports.forEach((report, i) => {
      const expected = memberIds.filter((id, k) => shardOf(id, k + 1, 3) === i).length;
      expect(report.shard).toEqual({ index: i, count: 3 });
      expect(report.rows).toBe(expected);
      expect(report.otherShards).toBe(300 - expected);
      expect(sum(report)).toBe(report.rows);
      expect(report.failed).toBe(0);
      expect(existsSync(`${file}.shard-${i}-of-3.memberctl-journal`)).toBe(true);
    });
    expect(reports.reduce((total, r) => total + r.rows, 0)).toBe(300);
    expect(reports.reduce((total, r) => total + r.invalid, 0)).toBe(invalid);
    expect(reports.reduce((total, r) => total + r.importedCount + r.updatedCount, 0)).toBe(300 - invalid);
    expect(reports.every((r) => r.rows > 50)).toBe(true); // the hash spreads members
    expect(box.stats().itemsReceived).toBe(300 - invalid); // each valid row sent exactly once over the three
    // per-member order held: each member ends as its last valid row, exactly as after one clean run
    expect(byId(box)).toEqual(byId(clean.box));

    // the shared state file took all three writers: a file of each member's last row is now unchanged, in every shard
    const lastRows = new Map<string, string>();
    lines.slice(1).forEach((line, k) => {
      if (memberIds[k] !== undefined && !line.includes(',maybe,')) lastRows.set(memberIds[k]!, line);
    });
    const latest = join(dir, 'latest.csv');
    writeFileSync(latest, `${lines[0]}\n${[...lastRows.values()].join('\n')}\n`);
    // (one row per member: far fewer rows than the first file, which the shrink guard would refuse)
    const second = await Promise.all(
      [0, 1, 2].map((i) =>
        runCli(
          ['import', latest, '--shard', `${i}/3`, '--json', '--changed-only', '--state', state, '--allow-shrink'],
          env,
        ),
      ),
    );
    const secondReports = second.map((run) => JSON.parse(run.stdout) as Report);
    expect(secondReports.reduce((total, r) => total + (r.unchanged ?? 0), 0)).toBe(lastRows.size);
    expect(box.stats().itemsReceived).toBe(300 - invalid);

    const bad = await runCli(['import', file, '--shard', '3/3'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--shard 3\/3: expected i\/n with 0 ≤ i < n/);
  });
});
