/**
 * The cgroup CPU quota, from file contents passed in (fixtures as a map of path → text): no real /sys is read and
 * nothing in the process is changed.
 */
import { describe, expect, it } from 'vitest';
import {
  cgroupPaths,
  coresFor,
  cpuQuotaCores,
  parseCfsQuota,
  parseCpuMax,
  type ReadText,
} from '../../src/io/cpu-quota.js';

const files =
  (map: Record<string, string>): ReadText =>
  (path) =>
    map[path];

describe('the cgroup CPU quota', () => {
  it("reads cgroup v2's cpu.max: quota over period, 'max' or anything unreadable is no limit", () => {
    expect(parseCpuMax('100000 100000\n')).toBe(1);
    expect(parseCpuMax('150000 100000')).toBe(1.5);
    expect(parseCpuMax('200000 100000')).toBe(2);
    expect(parseCpuMax('50000')).toBe(0.5); // period left out: the kernel's default
    expect(parseCpuMax('max 100000\n')).toBeUndefined();
    expect(parseCpuMax('')).toBeUndefined();
    expect(parseCpuMax(undefined)).toBeUndefined();
    expect(parseCpuMax('0 100000')).toBeUndefined();
    expect(parseCpuMax('garbage here')).toBeUndefined();
  });

  it("reads cgroup v1's cfs quota and period: -1 is no limit", () => {
    expect(parseCfsQuota('100000\n', '100000\n')).toBe(1);
    expect(parseCfsQuota('50000', '100000')).toBe(0.5);
    expect(parseCfsQuota('-1\n', '100000\n')).toBeUndefined();
    expect(parseCfsQuota('100000', undefined)).toBeUndefined();
    expect(parseCfsQuota(undefined, '100000')).toBeUndefined();
  });

  it("finds the process's cgroup paths in /proc/self/cgroup, v2's and v1's cpu controller's", () => {
    expect(cgroupPaths('0::/kubepods/pod1/c1\n')).toEqual({ v2: '/kubepods/pod1/c1', v1: '/' });
    expect(cgroupPaths('4:memory:/m\n2:cpu,cpuacct:/docker/abc\n0::/\n')).toEqual({ v2: '/', v1: '/docker/abc' });
    expect(cgroupPaths(undefined)).toEqual({ v2: '/', v1: '/' });
  });

  it('a pod limited to one CPU: v2 at the root of its cgroup namespace', () => {
    const read = files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000\n' });
    expect(cpuQuotaCores(read)).toBe(1);
  });

  it('v2 in a nested cgroup: the smallest quota of the cgroup and its parents', () => {
    const read = files({
      '/proc/self/cgroup': '0::/kubepods/pod1/c1\n',
      '/sys/fs/cgroup/kubepods/pod1/c1/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '150000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '400000 100000\n',
      '/sys/fs/cgroup/cpu.max': 'max 100000\n',
    });
    expect(cpuQuotaCores(read)).toBe(1.5);
  });

  it('v1, under either mount name', () => {
    const v1 = (mount: string) =>
      files({
        '/proc/self/cgroup': '3:cpu,cpuacct:/docker/abc\n',
        [`${mount}/docker/abc/cpu.cfs_quota_us`]: '100000\n',
        [`${mount}/docker/abc/cpu.cfs_period_us`]: '100000\n',
        [`${mount}/cpu.cfs_quota_us`]: '-1\n',
        [`${mount}/cpu.cfs_period_us`]: '100000\n',
      });
    expect(cpuQuotaCores(v1('/sys/fs/cgroup/cpu'))).toBe(1);
    expect(cpuQuotaCores(v1('/sys/fs/cgroup/cpu,cpuacct'))).toBe(1);
  });

  it('no quota anywhere, or nothing readable: no limit', () => {
    expect(cpuQuotaCores(files({}))).toBeUndefined();
    const read = files({
      '/proc/self/cgroup': '1:cpu:/\n0::/\n',
      '/sys/fs/cgroup/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    });
    expect(cpuQuotaCores(read)).toBeUndefined();
  });

  it('usable cores: the CPUs, fewer under a quota, a fraction rounded down, at least one', () => {
    expect(coresFor(16, undefined)).toBe(16);
    expect(coresFor(16, 1)).toBe(1);
    expect(coresFor(16, 1.5)).toBe(1);
    expect(coresFor(2, 4)).toBe(2);
    expect(coresFor(4, 0.5)).toBe(1);
  });
});
