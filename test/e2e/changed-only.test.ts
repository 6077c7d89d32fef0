/** --changed-only --state end to end: what is sent is proven by the sandbox's own counters, not by our summary. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv, runCli, tempDir } from './import-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

type Report = {
  rows: number;
  invalid: number;
  unchanged: number;
  importedCount: number;
  updatedCount: number;
  skipped: number;
  skippedExamples: { memberId: string }[];
  rejected: number;
  failed: number;
  requests: number;
};
const sum = (r: Report) =>
  r.invalid + r.unchanged + r.importedCount + r.updatedCount + r.skipped + r.rejected + r.failed;

function writeMembers(file: string, rows: Map<string, string>): void {
  writeFileSync(
    file,
    `memberId,email,firstName,isActive,createdAt\n${[...rows].map(([id, email]) => `${id},${email},First ${id},true,2024-01-05T09:00:00Z`).join('\n')}\n`,
  );
}

/** A sandbox, the CLI's environment for it, and where the test's CSV and state file go. */
async function startWithFiles() {
  box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
  const env = isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
  const dir = tempDir();
  return { sandbox: box, env, dir, file: join(dir, 'crm.csv'), state: join(dir, 'crm.state') };
}

describe('import --changed-only --state', { timeout: 180_000 }, () => {
  it('sends only new and changed members, never marks what the server did not confirm, and state show/forget/reset correct it', async () => {
    const { sandbox, env, dir, file, state } = await startWithFiles();
    const rows = new Map<string, string>();
    for (let i = 1; i <= 100; i++) rows.set(`c${i}`, `c${i}@example.com`);
    writeMembers(file, rows);
    // Items the server applied or skipped: a batch answered 503 reaches the sandbox but is not applied.
    const applied = () => {
      const stats = sandbox.stats();
      return stats.importedCount + stats.updatedCount + stats.skippedCount;
    };
    const run = async (...extra: string[]) => {
      const before = applied();
      const result = await runCli(
        ['import', file, '--changed-only', '--state', state, '--json', '--batch-size', '10', ...extra],
        env,
      );
      const report = JSON.parse(result.stdout) as Report;
      expect(sum(report)).toBe(report.rows);
      return { code: result.code, report, sent: applied() - before, stderr: result.stderr };
    };

    const first = await run();
    expect(first.code).toBe(0);
    expect(first.report).toMatchObject({ rows: 100, unchanged: 0, importedCount: 100 });
    expect(first.sent).toBe(100);
    expect(existsSync(state)).toBe(true);

    const second = await run();
    expect(second.report).toMatchObject({ rows: 100, unchanged: 100, importedCount: 0, updatedCount: 0, requests: 0 });
    expect(second.sent).toBe(0);
    expect(second.code).toBe(0);

    // change 3 rows, add 2: exactly 5 sent
    for (const id of ['c5', 'c50', 'c99']) rows.set(id, `${id}.changed@example.com`);
    rows.set('c101', 'c101@example.com').set('c102', 'c102@example.com');
    writeMembers(file, rows);
    const third = await run();
    expect(third.sent).toBe(5);
    expect(third.report).toMatchObject({ rows: 102, unchanged: 97, importedCount: 2, updatedCount: 3 });
    expect(sandbox.getMember('c50')!.email).toBe('c50.changed@example.com');

    // a failed request and a skipped member are not marked as sent: both go again next time
    rows.set('c10', 'c10.v2@example.com').set('c20', 'c20.v2@example.com');
    writeMembers(file, rows);
    sandbox.erase('c20');
    sandbox.setFaults({ failNext: [{ status: 503 }] });
    const failed = await run('--retries', '0', '--batch-size', '1', '--concurrency', '1');
    expect(failed.code).toBe(4);
    expect(failed.sent).toBe(1); // the 503 was not applied; c20 arrived and was skipped
    expect(failed.report).toMatchObject({ failed: 1, unchanged: 100 });
    expect(failed.report.skippedExamples.map((s) => s.memberId)).toEqual(['c20']);
    const again = await run('--resume');
    expect(again.code).toBe(3); // c20 is still erased on the server: skipped again, so still not marked
    expect(again.report).toMatchObject({ failed: 0, unchanged: 100 });
    expect(again.sent).toBe(1); // c10 only: the journal restores c20's skip from the run before
    expect(again.report.skippedExamples.map((s) => s.memberId)).toEqual(['c20']);
    expect(sandbox.getMember('c10')!.email).toBe('c10.v2@example.com');
    const restart = await run('--restart');
    expect(restart.sent).toBe(1); // c20 again: a skip never marks a member as sent; c10 is now unchanged
    expect(restart.report).toMatchObject({ unchanged: 101 });

    // memberctl state show / forget / reset (c20 keeps the hash of its first, confirmed item)
    const show = await runCli(['state', 'show', '--state', state, '--json'], env);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ members: 102, lastUpdate: expect.stringMatching(/^\d{4}-/) });
    const human = await runCli(['state', 'show', '--state', state], env);
    expect(human.stdout).toMatch(/members\s+102/);
    const one = await runCli(['state', 'show', 'c50', '--state', state, '--json'], env);
    expect(JSON.parse(one.stdout)).toMatchObject({
      memberId: 'c50',
      known: true,
      hash: expect.stringMatching(/^[A-Za-z0-9+/]{22}$/),
    });
    const unknown = await runCli(['state', 'show', 'nobody', '--state', state], env);
    expect(unknown.stdout).toContain('nobody: not in the state (its next row will be sent)');

    const forget = await runCli(['state', 'forget', 'c50', '--state', state], env);
    expect(forget.stdout).toContain('forgot c50');
    sandbox.setFaults({ failNext: [] });
    const afterForget = await run('--restart');
    expect(afterForget.sent).toBe(2); // c50 (forgotten) and c20 (still skipped, never marked)

    const reset = await runCli(['state', 'reset', '--state', state, '--json'], env);
    expect(JSON.parse(reset.stdout)).toEqual({ state, forgotten: 102 });
    const afterReset = await run('--restart');
    expect(afterReset.sent).toBe(102);

    const missing = await runCli(['state', 'show', '--state', join(dir, 'nope.state')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no state file at .*nope\.state/);
    const noState = await runCli(['import', file, '--changed-only'], env);
    expect(noState.code).toBe(2);
    expect(noState.stderr).toMatch(/--changed-only needs --state FILE/);
  });

  it('a CSV row is compared by its cells and mapping first: a new --map sends again, blanks around cells do not', async () => {
    const { sandbox, env, dir, file, state } = await startWithFiles();
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ columns: { email: 'customProperties.contact' } }));
    const rows = new Map(['d1', 'd2', 'd3'].map((id) => [id, `${id}@example.com`]));
    writeMembers(file, rows);
    const run = async (...extra: string[]) => {
      const before = sandbox.stats().itemsReceived;
      const result = await runCli(['import', file, '--changed-only', '--state', state, '--json', ...extra], env);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(sum(report)).toBe(report.rows);
      return sandbox.stats().itemsReceived - before;
    };
    expect(await run()).toBe(3);
    expect(await run()).toBe(0);
    expect(await run('--map', map)).toBe(3); // same cells, other items
    expect(sandbox.getMember('d2')!.customProperties).toMatchObject({ contact: 'd2@example.com' });
    expect(await run('--map', map)).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('d2@example.com', '  d2@example.com '));
    expect(await run('--map', map)).toBe(0); // the mapping trims: the same item
    expect(await run('--map', map)).toBe(0);
  });
});
