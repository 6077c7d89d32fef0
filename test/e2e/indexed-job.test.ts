/**
 * The Kubernetes Indexed Job of docs/reference/resume-sync-shard.md, run as written through a killed pod (issue 26
 * item 4), with namespaces since no cluster is at hand: each pod is `sh -c` of the docs' own `args` in a hostname
 * and pid namespace of its own, on one shared /work folder (journals, states, reports) and one /data folder,
 * against one sandbox. One pod is killed with kill -9 mid-run; its retry runs "elsewhere" (another hostname, a new
 * pid namespace where it gets the dead pod's pid). The docs' podFailurePolicy and backoffLimit decide, as the Job
 * controller would: an exit code it fails the Job on fails this test. The union on the server must be exact.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv, membersCsv, tempDir, until } from './import-helper.js';
import { NO_NAMESPACES, spawnShellIn } from './namespace-helper.js';

let box: SandboxHandle | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

/** The Job as the docs write it: completions, backoffLimit, the FailJob exit codes and the container's script. */
function documentedJob() {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'reference', 'resume-sync-shard.md'), 'utf8');
  const yaml = /Kubernetes Indexed Job[^\n]*\n\n```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
  const folded = /args:\n\s+- >-\n((?: {14}.*\n)+)/.exec(yaml)![1]!;
  return {
    completions: Number(/completions: (\d+)/.exec(yaml)![1]),
    backoffLimit: Number(/backoffLimit: (\d+)/.exec(yaml)![1]),
    failJob: /action: FailJob\s+onExitCodes: \{[^}]*values: \[([\d, ]+)\]/.exec(yaml)![1]!.split(',').map(Number),
    script: folded
      .split('\n')
      .map((line) => line.trim())
      .join(' ')
      .trim(),
  };
}

const ROWS = 800;
const VICTIM = 1;

describe('the documented Kubernetes Indexed Job', { timeout: 300_000 }, () => {
  it.skipIf(NO_NAMESPACES)(
    'survives a pod killed mid-run: its retry elsewhere resumes, the union is exact',
    async () => {
      const job = documentedJob();
      box = await startSandbox({ host: '127.0.0.1', port: 0, strictTokens: true, faults: { latencyMs: 200 } });
      const root = tempDir();
      const data = join(root, 'data');
      const work = join(root, 'work');
      mkdirSync(data);
      mkdirSync(work);
      membersCsv(data, ROWS);
      const script = job.script.replaceAll('/data/', `${data}/`).replaceAll('/work/', `${work}/`);
      const env = (index: number) =>
        isolatedEnv({
          JOB_COMPLETION_INDEX: String(index),
          MEMBERCTL_BASE_URL: box!.url,
          MEMBERCTL_TOKEN: box!.memberToken,
          // slow enough to be killed mid-run; a short lease so the retry need not wait a minute
          MEMBERCTL_BATCH_SIZE: '10',
          MEMBERCTL_CONCURRENCY: '1',
          MEMBERCTL_LOCK_LEASE_SECONDS: '2',
        });
      const batchesIn = (journal: string) => {
        try {
          return readFileSync(journal, 'utf8').split('"t":"batch"').length - 1;
        } catch {
          return 0;
        }
      };

      const attempts: string[] = [];
      const runIndex = async (index: number) => {
        for (let attempt = 0; attempt <= job.backoffLimit; attempt++) {
          const host = attempt === 0 ? `member-import-${index}` : `member-import-${index}-retry-${attempt}`;
          const pod = spawnShellIn({ host, pid: true }, script, env(index));
          if (index === VICTIM && attempt === 0) {
            const journal = join(work, `members.shard-${index}.journal`);
            let exited = false;
            void pod.result.then(() => (exited = true));
            // (a deadline for a loaded machine: each shard takes at least 20 requests of 200 ms)
            await until(() => batchesIn(journal) >= 2 || exited, 'the victim pod to be under way', 120_000);
            expect(exited, 'the victim pod ended before it could be killed').toBe(false);
            pod.child.kill('SIGKILL');
          }
          const { code, stderr } = await pod.result;
          attempts.push(`pod ${index} on ${host}: exit ${code}`);
          if (code === 0) return;
          if (job.failJob.includes(code!))
            throw new Error(`the Job fails: pod ${index} on ${host} exited ${code}: ${stderr}`);
        }
        throw new Error(`the Job fails: index ${index} reached the backoffLimit`);
      };
      await Promise.all(Array.from({ length: job.completions }, (_, index) => runIndex(index)));

      expect(attempts.filter((a) => a.startsWith(`pod ${VICTIM} `))).toEqual([
        `pod ${VICTIM} on member-import-${VICTIM}: exit 137`,
        `pod ${VICTIM} on member-import-${VICTIM}-retry-1: exit 0`,
      ]);
      // every member exactly once, with the file's values
      const members = box.members().map(({ memberId, email, firstName }) => ({ memberId, email, firstName }));
      const byId = (a: { memberId: string }, b: { memberId: string }) => a.memberId.localeCompare(b.memberId);
      expect(members.sort(byId)).toEqual(
        Array.from({ length: ROWS }, (_, i) => ({
          memberId: `m${i + 1}`,
          email: `m${i + 1}@example.com`,
          firstName: `Name${i + 1}`,
        })).sort(byId),
      );
      const reports = Array.from(
        { length: job.completions },
        (_, i) => JSON.parse(readFileSync(join(work, `report-${i}.json`), 'utf8')) as { rows: number },
      );
      expect(reports.reduce((total, report) => total + report.rows, 0)).toBe(ROWS);
    },
  );

  if (NO_NAMESPACES) it.skip(`skipped: ${NO_NAMESPACES}`);
});
