/**
 * --shard i/n: which of n processes owns a member. The hash is FNV-1a 32-bit over the memberId's UTF-8 bytes,
 * taken mod n; i counts from 0 (0..n-1), like a Kubernetes Indexed Job's JOB_COMPLETION_INDEX. It is part of
 * the on-disk contract (journals and state files are per shard): never change it.
 *
 * A record with no memberId (unparseable, or the column is empty) belongs to shard (record - 1) mod n, so n
 * shards together account for every row of the file exactly once.
 */
import { UsageError } from '../errors.js';

export interface Shard {
  index: number;
  count: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32-bit of the UTF-8 encoding of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return fnv1a32Bytes(Buffer.from(text, 'utf8'));
    hash = Math.imul(hash ^ code, FNV_PRIME);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, FNV_PRIME);
  return hash >>> 0;
}

/** The shard (0-based) a record belongs to among `count`. */
export function shardOf(memberId: string | undefined, record: number, count: number): number {
  if (memberId !== undefined && memberId !== '') return fnv1a32(memberId) % count;
  return (record - 1) % count;
}

/** Parses "i/n" (0 ≤ i < n). */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || !Number.isSafeInteger(count) || count < 1 || index >= count) {
    throw new UsageError(`--shard ${text}: expected i/n with 0 ≤ i < n, e.g. --shard 0/3, 1/3 and 2/3`, {
      code: 'shard',
      hint: 'Shards count from 0, like a Kubernetes Indexed Job: --shard "$JOB_COMPLETION_INDEX/3".',
    });
  }
  return { index, count };
}

/** "shard-1-of-3": how file names and messages name a shard. */
export function shardLabel(shard: Shard): string {
  return `shard-${shard.index}-of-${shard.count}`;
}
