/**
 * The shrink guard's count, taken before a run sends anything: the input's lines, found by scanning its bytes for
 * line breaks (Buffer.indexOf, at memory speed: no parsing, no decoding; gzip data is inflated on the way). A line
 * count is an upper bound on the records (a quoted cell may span lines, a line may be blank), so a good file never
 * looks smaller than it is. Only regular files are counted: standard input and pipes can be read only once.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { InputFormat } from './source.js';

export interface RowCount {
  /** Records at most: lines, less the CSV header. */
  rows: number;
  /** Lines (the last one counted even without a line break after it). */
  lines: number;
}

/**
 * The count, or undefined for input that cannot be read twice (stdin, a pipe) or is not line-based (a JSON array,
 * a workbook). Text in UTF-16 still has one 0x0A byte per line break (and a few more in some characters: the
 * bound only grows).
 */
export async function countRows(path: string, format: InputFormat): Promise<RowCount | undefined> {
  if (path === '-' || format === 'json' || format === 'xlsx') return undefined;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  // unreadable or broken gzip: no count here; the run itself reports the problem, with its line
  const lines = await countLines(path).catch(() => undefined);
  return lines === undefined ? undefined : { lines, rows: Math.max(0, format === 'csv' ? lines - 1 : lines) };
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function countLines(path: string): Promise<number> {
  const file = createReadStream(path, { highWaterMark: 1024 * 1024 });
  const source: Readable = (await isGzip(path)) ? file.pipe(createGunzip()) : file;
  let lines = 0;
  let last = 0x0a;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (chunk.length === 0) continue;
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++;
      last = chunk[chunk.length - 1]!;
    }
  } finally {
    file.destroy();
  }
  return last === 0x0a ? lines : lines + 1;
}
