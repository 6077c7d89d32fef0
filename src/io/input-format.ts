/**
 * Which reader an input needs: from --format, else from the name (.csv .tsv .json .ndjson .jsonl, each optionally
 * .gz), else (stdin or an unknown extension) from the first bytes: "[" is a JSON array, "{" NDJSON, anything else CSV.
 */
import type { InputFormat } from './source.js';

export interface NameInfo {
  format?: InputFormat;
  gzip: boolean;
}

const EXTENSIONS: Record<string, InputFormat> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
};

export function formatFromName(path: string): NameInfo {
  if (path === '-') return { gzip: false };
  let name = path.toLowerCase();
  const gzip = name.endsWith('.gz');
  if (gzip) name = name.slice(0, -3);
  const dot = name.lastIndexOf('.');
  const slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  const ext = dot > slash ? name.slice(dot) : '';
  return { format: EXTENSIONS[ext], gzip };
}

/** The format told by the first non-blank byte of the (decompressed) content; undefined when there is none. */
export function sniffFormat(head: Buffer): InputFormat | undefined {
  const bom = [0xef, 0xbb, 0xbf];
  let i = 0;
  while (i < 3 && i < head.length && head[i] === bom[i]) i++;
  if (i > 0 && i < 3) return i === head.length ? undefined : 'csv'; // a BOM cut short by the chunk: read on
  for (; i < head.length; i++) {
    const c = head[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x5b) return 'json';
    if (c === 0x7b) return 'ndjson';
    return 'csv';
  }
  return undefined;
}
