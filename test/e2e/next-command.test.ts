/** Advice that matches the next command, and reports that tell what happened (issue 15 item 7). */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { CLI, isolatedEnv, membersCsv, spawnCli, tempDir, until } from './import-helper.js';
import { runInProcess } from '../cli/run-in-process.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});
async function server(latencyMs = 0) {
  box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true, faults: { latencyMs } });
  return isolatedEnv({ MEMBERCTL_BASE_URL: box.url, MEMBERCTL_TOKEN: box.memberToken });
}

describe('advice and reports', { timeout: 120_000 }, () => {
  it('after Ctrl-C the summary prints the exact command that works, and that command finishes the import', async () => {
    const env = await server(300);
    const dir = tempDir();
    const file = membersCsv(dir, 2000, undefined, 'with space.csv');
    const running = spawnCli(['import', file, '--batch-size', '50', '--concurrency', '1', '--restart'], env);
    await until(() => box!.stats().importedCount > 0, 'a first confirmation');
    running.child.kill('SIGINT');
    const run = await running.result;
    expect(run.code).toBe(4);
    const advised = /run: (memberctl import .*)$/m.exec(run.stdout)?.[1];
    expect(advised).toBe(`memberctl import '${file}' --batch-size 50 --concurrency 1 --resume`);
    box!.setFaults({ latencyMs: 0 });
    // the advised command, through a real shell, with memberctl on the PATH
    // (not spawnSync: the sandbox answers from this very process)
    const shell = spawn('bash', ['-c', advised!.replace(/^memberctl /, `"${process.execPath}" "${CLI}" `)], {
      env,
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => shell.on('close', resolve))).toBe(0);
    expect(box!.memberCount()).toBe(2000);
  });

  it('--restart starts again on a damaged journal; --restart --no-journal removes the old journal', async () => {
    const env = await server();
    const dir = tempDir();
    const file = membersCsv(dir, 10);
    writeFileSync(`${file}.memberctl-journal`, 'garbage\n');
    const refused = await runInProcess(['import', file], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--restart');
    expect((await runInProcess(['import', file, '--restart'], env)).code).toBe(0);
    expect(box!.memberCount()).toBe(10);
    writeFileSync(`${file}.memberctl-journal`, 'garbage\n');
    const noJournal = await runInProcess(['import', file, '--restart', '--no-journal'], env);
    expect(noJournal.code).toBe(0);
    expect(existsSync(`${file}.memberctl-journal`)).toBe(false);
  });

  it('a failed run rewrites the report; every report has the exit code, times, input, target and error', async () => {
    const env = await server();
    const dir = tempDir();
    const file = membersCsv(dir, 5);
    const report = join(dir, 'run.json');
    const ok = await runInProcess(['import', file, '--report', report], env);
    expect(ok.code).toBe(0);
    const good = JSON.parse(readFileSync(report, 'utf8')) as Record<string, unknown>;
    expect(good).toMatchObject({ exitCode: 0, input: file, target: box!.url.replace(/\/$/, ''), error: null, rows: 5 });
    expect(Date.parse(good.startedAt as string)).toBeLessThanOrEqual(Date.parse(good.finishedAt as string));
    // the next night fails before anything is sent (a journal of another target): the report says so
    writeFileSync(`${file}.memberctl-journal`, 'garbage\n');
    const bad = await runInProcess(['import', file, '--report', report], env);
    expect(bad.code).toBe(2);
    const failed = JSON.parse(readFileSync(report, 'utf8')) as Record<string, unknown>;
    expect(failed).toMatchObject({ exitCode: 2, input: file, error: { code: 'journal-corrupt' } });
    expect((failed.error as { message: string }).message).toContain('is damaged');
  });
});
