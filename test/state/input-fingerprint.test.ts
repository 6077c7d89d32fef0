/**
 * The input's fingerprint: the SHA-256 of all its bytes, read in buffers under glibc's mmap threshold (a larger one,
 * once freed, raised the threshold for the rest of the run and kept ~11 MB of free heap resident: issue 28).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintInput, READ_BYTES } from '../../src/state/input-fingerprint.js';

const dir = mkdtempSync(join(tmpdir(), 'memberctl-fingerprint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** glibc's default M_MMAP_THRESHOLD: a malloc of this size or more is an mmap, and freeing one raises it. */
const GLIBC_MMAP_THRESHOLD = 128 * 1024;

describe('fingerprintInput', () => {
  it('reads in a buffer malloc serves from its heap, not by mmap', () => {
    expect(READ_BYTES).toBeLessThan(GLIBC_MMAP_THRESHOLD);
  });

  it.each([
    ['empty', 0],
    ['one byte', 1],
    ['exactly one read', READ_BYTES],
    ['one read and a byte', READ_BYTES + 1],
    ['many reads', 5 * READ_BYTES + 12_345],
  ])('hashes every byte of a file (%s)', async (_name, size) => {
    const bytes = randomBytes(size);
    const path = join(dir, `input-${size}`);
    writeFileSync(path, bytes);
    const fingerprint = await fingerprintInput(path);
    expect(fingerprint).toEqual({ path, size, sha256: createHash('sha256').update(bytes).digest('hex') });
  });
});
