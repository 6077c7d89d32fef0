/** The memory limit a pod sets (cgroup v2 or v1) and the young-generation cap it chooses (src/v8-flags.ts). */
import { describe, expect, it } from 'vitest';
import { cgroupMemoryLimit, SMALL_POD_YOUNG_CAP_BYTES, YOUNG_CAP_BYTES, youngCapFor } from '../src/v8-flags.js';

const MiB = 1024 * 1024;

/** A reader of the given files; any other path is missing, as on a machine without that cgroup version. */
function files(contents: Record<string, string>) {
  return (path: string) => {
    const text = contents[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };
}

describe('the cgroup memory limit', () => {
  it('reads cgroup v2 memory.max, "max" being no limit', () => {
    expect(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': '268435456\n' }))).toBe(256 * MiB);
    expect(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': 'max\n' }))).toBeUndefined();
  });

  it("reads cgroup v1's limit_in_bytes, its 2^63 rounded to a page being no limit", () => {
    const v1 = '/sys/fs/cgroup/memory/memory.limit_in_bytes';
    expect(cgroupMemoryLimit(files({ [v1]: '536870912\n' }))).toBe(512 * MiB);
    expect(cgroupMemoryLimit(files({ [v1]: '9223372036854771712\n' }))).toBeUndefined();
  });

  it('is undefined without a cgroup file', () => {
    expect(cgroupMemoryLimit(files({}))).toBeUndefined();
  });
});

describe('the young-generation cap', () => {
  it('is 8 MB in a pod limited to 512 MiB or less, 16 MB otherwise', () => {
    expect(youngCapFor(256 * MiB)).toBe(SMALL_POD_YOUNG_CAP_BYTES);
    expect(youngCapFor(512 * MiB)).toBe(SMALL_POD_YOUNG_CAP_BYTES);
    expect(youngCapFor(1024 * MiB)).toBe(YOUNG_CAP_BYTES);
    expect(youngCapFor(undefined)).toBe(YOUNG_CAP_BYTES);
    expect(SMALL_POD_YOUNG_CAP_BYTES).toBe(8 * MiB);
  });
});
