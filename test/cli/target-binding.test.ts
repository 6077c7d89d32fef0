/** A journal and a --state belong to one target (issue 15 item 1): another target is refused, exit 2, before sending. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv, membersCsv, tempDir } from '../e2e/import-helper.js';
import { runInProcess } from './run-in-process.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});
let dir: string;
beforeAll(() => {
  dir = tempDir();
});

async function server() {
  box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true });
  const url = new URL(box.url);
  return {
    box,
    env: isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken }),
    shown: `${url.origin}${url.pathname}`.replace(/\/$/, ''),
  };
}

describe('target binding', { timeout: 120_000 }, () => {
  it('a journal made against the sandbox is not resumed against a server, nor one server against another', async () => {
    const file = membersCsv(dir, 30, undefined, 'journal.csv');
    const first = await runInProcess(['import', file, '--sandbox', '--keep-journal'], isolatedEnv());
    expect(first.code).toBe(0);
    expect(existsSync(`${file}.memberctl-journal`)).toBe(true);
    const { box: real, env, shown } = await server();
    const resumed = await runInProcess(['import', file, '--resume'], env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      `journal ${file}.memberctl-journal was written against a local sandbox (ephemeral); this run sends to ${shown}`,
    );
    expect(resumed.stderr).toContain('--restart');
    expect(real.stats().itemsReceived).toBe(0);
    // --restart starts again against this target, and binds the new journal to it
    expect((await runInProcess(['import', file, '--restart', '--keep-journal'], env)).code).toBe(0);
    expect(real.stats().itemsReceived).toBe(30);
    const back = await runInProcess(['import', file, '--resume', '--sandbox'], isolatedEnv());
    expect(back.code).toBe(2);
    expect(back.stderr).toContain(`was written against ${shown}; this run sends to a local sandbox (ephemeral)`);
  });

  it('a --state filled against the sandbox refuses a real server (which receives nothing); state show names the target', async () => {
    const file = membersCsv(dir, 20, undefined, 'state.csv');
    const state = join(dir, 'members.state');
    const data = join(dir, 'sandbox.ndjson');
    expect(
      (
        await runInProcess(
          ['import', file, '--sandbox', '--sandbox-data', data, '--changed-only', '--state', state],
          isolatedEnv(),
        )
      ).code,
    ).toBe(0);
    const show = await runInProcess(['state', 'show', '--state', state, '--json'], isolatedEnv());
    expect(JSON.parse(show.stdout)).toMatchObject({ members: 20, target: `a local sandbox with data file ${data}` });
    const { box: real, env, shown } = await server();
    const run = await runInProcess(['import', file, '--changed-only', '--state', state], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `state ${state} was filled against a local sandbox with data file ${data}; this run sends to ${shown}`,
    );
    expect(real.stats().itemsReceived).toBe(0);
    // the same sandbox data file is the same target: the second pass sends nothing, as it should
    const again = await runInProcess(
      ['import', file, '--sandbox', '--sandbox-data', data, '--changed-only', '--state', state, '--json'],
      isolatedEnv(),
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 20, requests: 0 });
  });
});
