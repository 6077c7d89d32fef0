/**
 * --changed-only --state through the whole command line (in-process): the flags reach the run, the exit codes, and the state commands' words. What is
 * sent on each run (changed rows, failures and skips never marked, forget/reset, a new mapping) is proven
 * in-process against the sandbox in test/core/import-changed-only.test.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

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
  it('the second run sends nothing, and state show/forget/reset say what they did', async () => {
    const { sandbox, env, dir, file, state } = await startWithFiles();
    const rows = new Map<string, string>();
    for (let i = 1; i <= 3; i++) rows.set(`c${i}`, `c${i}@example.com`);
    writeMembers(file, rows);
    const run = async () => {
      const before = sandbox.stats().itemsReceived;
      const result = await runInProcess(['import', file, '--changed-only', '--state', state, '--json'], env);
      const report = JSON.parse(result.stdout) as Report;
      expect(sum(report)).toBe(report.rows);
      return { code: result.code, report, sent: sandbox.stats().itemsReceived - before };
    };

    const first = await run();
    expect(first.code).toBe(0);
    expect(first.report).toMatchObject({ rows: 3, unchanged: 0, importedCount: 3 });
    expect(first.sent).toBe(3);
    expect(existsSync(state)).toBe(true);

    const second = await run();
    expect(second.report).toMatchObject({ rows: 3, unchanged: 3, importedCount: 0, updatedCount: 0, requests: 0 });
    expect(second.sent).toBe(0);
    expect(second.code).toBe(0);

    const show = await runInProcess(['state', 'show', '--state', state, '--json'], env);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ members: 3, lastUpdate: expect.stringMatching(/^\d{4}-/) });
    const human = await runInProcess(['state', 'show', '--state', state], env);
    expect(human.stdout).toMatch(/members\s+3/);
    const unknown = await runInProcess(['state', 'show', 'nobody', '--state', state], env);
    expect(unknown.stdout).toContain('nobody: not in the state (its next row will be sent)');
    const forget = await runInProcess(['state', 'forget', 'c2', '--state', state], env);
    expect(forget.stdout).toContain('forgot c2');
    const reset = await runInProcess(['state', 'reset', '--state', state, '--json'], env);
    expect(JSON.parse(reset.stdout)).toEqual({ state, forgotten: 2 });

    const missing = await runInProcess(['state', 'show', '--state', join(dir, 'nope.state')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no state file at .*nope\.state/);
    const noState = await runInProcess(['import', file, '--changed-only'], env);
    expect(noState.code).toBe(2);
    expect(noState.stderr).toMatch(/--changed-only needs --state FILE/);
  });
});
