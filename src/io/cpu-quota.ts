/**
 * The CPU time this process's container may use, from its cgroup's quota, in cores (1.5: one and a half). Node 20's
 * `os.availableParallelism()` counts the CPUs the process may run on, not the time it is given: a pod limited to
 * one CPU by a quota on a 16-core node still sees 16. Read once and cached; a file that cannot be read or says
 * "max" (v2) or -1 (v1) is no limit.
 *
 * cgroup v2: `cpu.max` ("QUOTA PERIOD", or "max PERIOD"). v1: `cpu.cfs_quota_us` and `cpu.cfs_period_us`. Both at the
 * process's own cgroup (`/proc/self/cgroup`) and every parent up to the root, the smallest quota winning (a
 * container's cgroup namespace shows its own cgroup as the root, so that is usually one file).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Reads a small file's text, or undefined when it cannot be read. */
export type ReadText = (path: string) => string | undefined;

/** cgroup v2's `cpu.max`: cores, or undefined for "max" or a text it cannot read. */
export function parseCpuMax(text: string | undefined): number | undefined {
  const [quota, period] = (text ?? '').trim().split(/\s+/);
  return cores(quota, period ?? '100000');
}

/** cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`: cores, or undefined for -1 or a text it cannot read. */
export function parseCfsQuota(quota: string | undefined, period: string | undefined): number | undefined {
  return cores(quota?.trim(), period?.trim());
}

function cores(quota: string | undefined, period: string | undefined): number | undefined {
  if (quota === undefined || period === undefined || !/^\d+$/.test(quota) || !/^\d+$/.test(period)) return undefined;
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : undefined;
}

/** The cgroup paths of this process from `/proc/self/cgroup`: v2's, and v1's cpu controller's ("/" when unknown). */
export function cgroupPaths(text: string | undefined): { v2: string; v1: string } {
  let v2 = '/';
  let v1 = '/';
  for (const line of (text ?? '').split('\n')) {
    const [, controllers, path] = line.match(/^\d+:([^:]*):(.+)$/) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (controllers === '') v2 = path;
    else if (controllers.split(',').includes('cpu')) v1 = path;
  }
  return { v2, v1 };
}

/** A path and each of its parents, the root last: /a/b → /a/b, /a, "". */
function upToRoot(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, parts.length - i).join('/')}`).concat('');
}

/** The smallest CPU quota of this process's cgroup and its parents, in cores, or undefined (none, or unknown). */
export function cpuQuotaCores(read: ReadText): number | undefined {
  const { v2, v1 } = cgroupPaths(read('/proc/self/cgroup'));
  const found: number[] = [];
  for (const dir of upToRoot(v2)) {
    const quota = parseCpuMax(read(`/sys/fs/cgroup${dir}/cpu.max`));
    if (quota !== undefined) found.push(quota);
  }
  for (const mount of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct'])
    for (const dir of upToRoot(v1)) {
      const quota = parseCfsQuota(read(`${mount}${dir}/cpu.cfs_quota_us`), read(`${mount}${dir}/cpu.cfs_period_us`));
      if (quota !== undefined) found.push(quota);
    }
  return found.length > 0 ? Math.min(...found) : undefined;
}

const readOrUndefined: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * Cores a process can keep busy: the CPUs it may run on, fewer when its cgroup's quota gives less time (a quota of
 * 1.5 cores: 1, since a second thread would get half a core). At least 1.
 */
export function coresFor(parallelism: number, quotaCores: number | undefined): number {
  return Math.max(1, Math.min(parallelism, Math.floor(quotaCores ?? Number.POSITIVE_INFINITY)));
}

let cached: number | undefined;

/** This process's usable cores (coresFor), read once. */
export function usableCores(): number {
  cached ??= coresFor(availableParallelism(), cpuQuotaCores(readOrUndefined));
  return cached;
}
