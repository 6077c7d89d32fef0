/**
 * The journal's lines. A journal is NDJSON, append-only: a header binding it to one input file, then one entry
 * per server response whose records were settled for good. Record numbers are written as ranges ("1-250,252"),
 * so a 500-record batch costs one short line, not 500.
 *
 *   {"memberctl":"journal","v":1,"input":{"path":"/data/members.csv","size":123,"sha256":"…"},"shard":null,"target":"https://api.example.com/v1","createdAt":"…"}
 *   {"t":"run","n":1,"at":"2026-01-01T02:00:00.000Z"}
 *   {"t":"batch","ok":"1-249,251-500","imp":120,"upd":379,"skip":[[250,"reason"]],"rej":[]}
 *
 * `ok` are the records the server counted as imported or updated (its counts say how many of each, not which);
 * `skip` and `rej` are [record, reason] pairs. Failed records are never written: they are to be sent again.
 * Invalid records are not written either: validation is deterministic and runs again on resume.
 */
import type { Shard } from './shard.js';

export const JOURNAL_VERSION = 1;

export interface JournalHeader {
  memberctl: 'journal';
  v: number;
  input: { path: string; size: number; sha256: string };
  shard: Shard | null;
  /** Where the confirmations came from (state/target-binding.ts); absent in journals of older versions. */
  target?: string;
  createdAt: string;
}

export interface RunEntry {
  t: 'run';
  n: number;
  at: string;
}

export interface BatchEntry {
  t: 'batch';
  ok: string;
  imp: number;
  upd: number;
  skip: [number, string][];
  rej: [number, string][];
}

export type JournalEntry = RunEntry | BatchEntry;

/** Sorted, deduplicated record numbers as "1-3,7,9-12". */
export function encodeRanges(records: readonly number[]): string {
  // a response's records come in record order (ledger.ts): sorted already, no copy to sort
  const sorted = ascending(records) ? records : [...records].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    const start = sorted[i]!;
    let end = start;
    while (i + 1 < sorted.length && sorted[i + 1]! <= end + 1) end = sorted[++i]!;
    parts.push(start === end ? String(start) : `${start}-${end}`);
    i++;
  }
  return parts.join(',');
}

/** Calls `visit` for each record of "1-3,7"; throws on anything else. */
export function forEachInRanges(text: string, visit: (record: number) => void): void {
  if (text === '') return;
  for (const part of text.split(',')) {
    const dash = part.indexOf('-');
    const start = Number(dash < 0 ? part : part.slice(0, dash));
    const end = dash < 0 ? start : Number(part.slice(dash + 1));
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 1 || end < start) {
      throw new Error(`bad record range "${part}"`);
    }
    for (let record = start; record <= end; record++) visit(record);
  }
}

export function isHeader(value: unknown): value is JournalHeader {
  const v = value as JournalHeader | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.memberctl === 'journal' &&
    typeof v.v === 'number' &&
    typeof v.input?.path === 'string' &&
    typeof v.input.size === 'number' &&
    typeof v.input.sha256 === 'string'
  );
}

export function isEntry(value: unknown): value is JournalEntry {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.t === 'run') return typeof v.n === 'number';
  return (
    v.t === 'batch' &&
    typeof v.ok === 'string' &&
    typeof v.imp === 'number' &&
    typeof v.upd === 'number' &&
    Array.isArray(v.skip) &&
    Array.isArray(v.rej)
  );
}

function ascending(numbers: readonly number[]): boolean {
  for (let i = 1; i < numbers.length; i++) if (numbers[i - 1]! > numbers[i]!) return false;
  return true;
}
