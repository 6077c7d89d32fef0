/**
 * --changed-only --state through importFile, in-process against the real sandbox and the real HTTP client: what is
 * sent is proven by the sandbox's own counters, not by the summary. The flags, exit codes and the state commands'
 * words stay in test/e2e/changed-only.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { importFile, type ImportRequest } from '../../src/core/import/index.js';
import { forgetMember, resetState, stateOfMember, stateOverview } from '../../src/core/import/durable/state-admin.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { bucketSum } from './import-helper.js';
import { tempDir } from '../e2e/import-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

function writeMembers(file: string, rows: Map<string, string>): void {
  writeFileSync(
    file,
    `memberId,email,firstName,isActive,createdAt\n${[...rows].map(([id, email]) => `${id},${email},First ${id},true,2024-01-05T09:00:00Z`).join('\n')}\n`,
  );
}

interface RunFlags {
  batchSize?: number;
  concurrency?: number;
  retries?: number;
  resume?: boolean;
  restart?: boolean;
  map?: string;
}

/** A sandbox, and `importOnce` doing what `memberctl import FILE --changed-only --state STATE` does with those flags. */
async function startWithFiles() {
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
  box = sandbox;
  const dir = tempDir();
  const file = join(dir, 'crm.csv');
  const state = join(dir, 'crm.state');
  const target = { baseUrl: new URL(`${sandbox.url}/`), token: sandbox.memberToken, name: sandbox.url, warnings: [] };
  const importOnce = async (flags: RunFlags = {}) => {
    const request: ImportRequest = {
      input: { path: file, mapFile: flags.map },
      sending: {
        batchSize: flags.batchSize ?? 500,
        maxBatchBytes: 1 << 20,
        concurrency: flags.concurrency,
        retries: flags.retries ?? 3,
        timeoutMs: 10_000,
      },
      state: {
        input: file,
        journal: { disabled: false, resume: flags.resume, restart: flags.restart },
        statePath: state,
        changedOnly: true,
      },
    };
    const report = await importFile(request, { openTarget: async () => target });
    expect(bucketSum(report.summary)).toBe(report.summary.rows);
    return { code: exitCodeFor(report.category), summary: report.summary };
  };
  return { sandbox, dir, file, state, importOnce };
}

describe('importFile --changed-only --state (in-process)', () => {
  it('sends only new and changed members, never marks what the server did not confirm, and state forget/reset correct it', async () => {
    const { sandbox, file, state, importOnce } = await startWithFiles();
    const rows = new Map<string, string>();
    for (let i = 1; i <= 100; i++) rows.set(`c${i}`, `c${i}@example.com`);
    writeMembers(file, rows);
    // Items the server applied or skipped: a batch answered 503 reaches the sandbox but is not applied.
    const applied = () => {
      const stats = sandbox.stats();
      return stats.importedCount + stats.updatedCount + stats.skippedCount;
    };
    const run = async (flags: RunFlags = {}) => {
      const before = applied();
      const result = await importOnce({ batchSize: 10, ...flags });
      return { ...result, sent: applied() - before };
    };

    const first = await run();
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({ rows: 100, unchanged: 0, importedCount: 100 });
    expect(first.sent).toBe(100);
    expect(stateOverview(state)).toMatchObject({ members: 100 });

    const second = await run();
    expect(second.summary).toMatchObject({ rows: 100, unchanged: 100, importedCount: 0, updatedCount: 0, requests: 0 });
    expect(second.sent).toBe(0);
    expect(second.code).toBe(0);

    // change 3 rows, add 2: exactly 5 sent
    for (const id of ['c5', 'c50', 'c99']) rows.set(id, `${id}.changed@example.com`);
    rows.set('c101', 'c101@example.com').set('c102', 'c102@example.com');
    writeMembers(file, rows);
    const third = await run();
    expect(third.sent).toBe(5);
    expect(third.summary).toMatchObject({ rows: 102, unchanged: 97, importedCount: 2, updatedCount: 3 });
    expect(sandbox.getMember('c50')!.email).toBe('c50.changed@example.com');

    // a failed request and a skipped member are not marked as sent: both go again next time
    rows.set('c10', 'c10.v2@example.com').set('c20', 'c20.v2@example.com');
    writeMembers(file, rows);
    sandbox.erase('c20');
    sandbox.setFaults({ failNext: [{ status: 503 }] });
    const failed = await run({ retries: 0, batchSize: 1, concurrency: 1 });
    expect(failed.code).toBe(4);
    expect(failed.sent).toBe(1); // the 503 was not applied; c20 arrived and was skipped
    expect(failed.summary).toMatchObject({ failed: 1, unchanged: 100 });
    expect(failed.summary.skippedExamples.map((s) => s.memberId)).toEqual(['c20']);
    const again = await run({ resume: true });
    expect(again.code).toBe(3); // c20 is still erased on the server: skipped again, so still not marked
    expect(again.summary).toMatchObject({ failed: 0, unchanged: 100 });
    expect(again.sent).toBe(1); // c10 only: the journal restores c20's skip from the run before
    expect(again.summary.skippedExamples.map((s) => s.memberId)).toEqual(['c20']);
    expect(sandbox.getMember('c10')!.email).toBe('c10.v2@example.com');
    const restart = await run({ restart: true });
    expect(restart.sent).toBe(1); // c20 again: a skip never marks a member as sent; c10 is now unchanged
    expect(restart.summary).toMatchObject({ unchanged: 101 });

    // c20 keeps the hash of its first, confirmed item
    expect(stateOverview(state)).toMatchObject({ members: 102, lastUpdate: expect.stringMatching(/^\d{4}-/) });
    expect(stateOfMember(state, 'c50')).toMatchObject({
      memberId: 'c50',
      known: true,
      hash: expect.stringMatching(/^[A-Za-z0-9+/]{22}$/),
    });
    expect(stateOfMember(state, 'nobody')).toMatchObject({ known: false });

    expect(forgetMember(state, 'c50')).toMatchObject({ forgotten: true });
    sandbox.setFaults({ failNext: [] });
    const afterForget = await run({ restart: true });
    expect(afterForget.sent).toBe(2); // c50 (forgotten) and c20 (still skipped, never marked)

    expect(resetState(state)).toEqual({ state, forgotten: 102 });
    const afterReset = await run({ restart: true });
    expect(afterReset.sent).toBe(102);
  });

  it('a CSV row is compared by its cells and mapping first: a new --map sends again, blanks around cells do not', async () => {
    const { sandbox, dir, file, importOnce } = await startWithFiles();
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ columns: { email: 'customProperties.contact' } }));
    const rows = new Map(['d1', 'd2', 'd3'].map((id) => [id, `${id}@example.com`]));
    writeMembers(file, rows);
    const run = async (flags: RunFlags = {}) => {
      const before = sandbox.stats().itemsReceived;
      const result = await importOnce(flags);
      expect(result.code).toBe(0);
      return sandbox.stats().itemsReceived - before;
    };
    expect(await run()).toBe(3);
    expect(await run()).toBe(0);
    expect(await run({ map })).toBe(3); // same cells, other items
    expect(sandbox.getMember('d2')!.customProperties).toMatchObject({ contact: 'd2@example.com' });
    expect(await run({ map })).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('d2@example.com', '  d2@example.com '));
    expect(await run({ map })).toBe(0); // the mapping trims: the same item
    expect(await run({ map })).toBe(0);
  });
});
