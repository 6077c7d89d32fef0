/** The memory limit a pod sets (as libuv reads it from the cgroup) and the young-generation cap it chooses. */
import { describe, expect, it } from 'vitest';
import { cgroupMemoryLimit, SMALL_POD_YOUNG_CAP_BYTES, YOUNG_CAP_BYTES, youngCapFor } from '../src/v8-flags.js';

const MiB = 1024 * 1024;

describe('the cgroup memory limit', () => {
  it('is the bytes libuv reports', () => {
    expect(cgroupMemoryLimit(256 * MiB)).toBe(256 * MiB);
  });

  it("is undefined for no limit: 0, v1's unlimited (2^63 rounded down to a page), or nothing", () => {
    expect(cgroupMemoryLimit(0)).toBeUndefined();
    expect(cgroupMemoryLimit(9223372036854771712)).toBeUndefined();
    expect(cgroupMemoryLimit(2 ** 64)).toBeUndefined();
    expect(cgroupMemoryLimit(undefined)).toBeUndefined();
  });

  it("reads this process's own without failing", () => {
    const limit = cgroupMemoryLimit();
    expect(limit === undefined || limit > 0).toBe(true);
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
