/**
 * What binds a journal to its input: the file's absolute path (for messages only), its size and the SHA-256 of
 * its bytes as stored (compressed bytes for .gz). A full hash, not a sample: two nightly exports of the same size
 * that differ in one row in the middle are different files, and resuming one with the other's journal would skip
 * records that were never sent. SHA-256 streams at about 1 GB/s here, so it costs ~0.2 s for a 1M-row CSV; a
 * fresh import overlaps it with sending (the header is written before the first confirmation is), only
 * --resume waits for it before sending.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

export interface InputFingerprint {
  path: string;
  size: number;
  sha256: string;
}

export async function fingerprintInput(path: string): Promise<InputFingerprint> {
  const { size } = await stat(path);
  const hash = createHash('sha256');
  // 64 KiB reads: big enough for ~1 GB/s, small enough that the buffers never pile up in memory before a GC
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) hash.update(chunk as Buffer);
  return { path: resolve(path), size, sha256: hash.digest('hex') };
}
