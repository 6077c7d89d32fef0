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

/**
 * Reads into one reused buffer (no buffer per chunk for the GC) of 120 KiB: under glibc's mmap threshold (128 KiB),
 * so it comes from the heap, not mmap. A 4 MiB buffer did mmap, and freeing it raised glibc's threshold to 4 MiB for
 * the rest of the run: every later buffer under 4 MiB (request bodies, chunks, packed records) came from malloc's
 * heap, whose free pages stay resident. 1M rows: peak RSS 168 → 157 MB; the hash's extra reads cost ~40 ms per 126 MB
 * (docs/performance.md, issue 28).
 */
export const READ_BYTES = 120 * 1024;

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
