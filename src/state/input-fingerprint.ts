/**
 * What binds a journal to its input: the file's absolute path (for messages only), its size and the SHA-256 of
 * its bytes as stored (compressed bytes for .gz). A full hash, not a sample: two nightly exports of the same size
 * that differ in one row in the middle are different files, and resuming one with the other's journal would skip
 * records that were never sent. It costs ~1 ms per MB (docs/performance.md), paid before the first request
 * (journal-session.ts says why not alongside).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';

export interface InputFingerprint {
  path: string;
  size: number;
  sha256: string;
}

/** Reads of 4 MiB into one reused buffer: few round trips to the thread pool, no buffer per chunk for the GC. */
const READ_BYTES = 4 * 1024 * 1024;

export async function fingerprintInput(path: string): Promise<InputFingerprint> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafeSlow(Math.min(READ_BYTES, Math.max(size, 1)));
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return { path: resolve(path), size, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}
