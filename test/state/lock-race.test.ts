/**
 * Many processes, each on a host of its own (`unshare -u`), race for one abandoned lock on a shared folder: exactly
 * one takes it over, the others refuse naming the winner's host (they see its beats). Then the winner is killed
 * with kill -9 and the race runs again. Needs root for unshare; skipped with the reason where it does not work.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../e2e/import-helper.js';

const UNSHARE = spawnSync('unshare', ['-u', 'true']).status === 0;
const LOCK_MODULE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'state', 'lock.js')).href;
const RACER = `
const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
try {
  await acquireLock(process.env.TARGET, 'journal');
  console.log('won');
  setInterval(() => undefined, 60_000); // holds (and renews) until killed
} catch (error) {
  console.log(error.code + ' ' + error.message);
  process.exit(0);
}
`;

interface Racer {
  host: string;
  child: ChildProcess;
  said: () => string;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

function racer(host: string, target: string): Racer {
  const child = spawn(
    'unshare',
    ['-u', 'sh', '-c', `hostname "$1" && exec "$2" --input-type=module -e "$3"`, 'sh', host, process.execPath, RACER],
    {
      env: { ...process.env, TARGET: target, MEMBERCTL_LOCK_LEASE_SECONDS: '4' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  running.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return { host, child, said: () => out.trim() };
}

async function race(round: string, target: string): Promise<Racer> {
  const racers = Array.from({ length: 6 }, (_, i) => racer(`${round}-${i}`, target));
  await until(() => racers.every((r) => r.said() !== ''), 'every racer to win or refuse', 120_000);
  const winners = racers.filter((r) => r.said() === 'won');
  expect(winners, racers.map((r) => `${r.host}: ${r.said()}`).join('\n')).toHaveLength(1);
  const winner = winners[0]!;
  for (const r of racers)
    if (r !== winner)
      expect(r.said()).toContain(`is in use by another memberctl (pid ${winner.child.pid} on ${winner.host}`);
  expect(JSON.parse(readFileSync(`${target}.lock`, 'utf8'))).toMatchObject({ host: winner.host });
  return winner;
}

describe('a process holding locks', { timeout: 120_000 }, () => {
  it('ends by itself when its work is done, held or released (the renewer never keeps it alive), leaving no lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memberctl-race-'));
    const script = `
      const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
      const released = await acquireLock(process.env.TARGET + '-a', 'journal');
      await released.release();
      await acquireLock(process.env.TARGET + '-b', 'state'); // never released: the exit takes it away
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TARGET: join(dir, 'j') },
      stdio: 'inherit',
    });
    running.push(child);
    let code: number | null | undefined;
    child.on('close', (exitCode) => (code = exitCode));
    await until(() => code !== undefined, 'the process to end by itself', 60_000);
    expect(code).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a lock raced for by processes on hosts of their own', { timeout: 300_000 }, () => {
  it.skipIf(!UNSHARE)('is taken over by exactly one; after its kill -9, again by exactly one', async () => {
    const target = join(mkdtempSync(join(tmpdir(), 'memberctl-race-')), 'members.csv.memberctl-journal');
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: 7, host: 'dead-pod', at: 'then', id: 'gone', lease: 1 }));
    const first = await race('a', target);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('close', resolve));
    const second = await race('b', target);
    second.child.kill('SIGKILL');
  });
  if (!UNSHARE) it.skip('unshare -u does not work here (needs root and user namespaces): nothing to race across hosts');
});
