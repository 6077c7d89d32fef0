/** Shared helpers for the reader tests: temp files, a chunked stdin, and reading a source to the end. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openRecordSource } from '../../src/io/open-source.js';
import type { RecordSource, SourceOptions, SourceRecord } from '../../src/io/source.js';

export function tempDir(prefix: string): {
  path(name: string): string;
  write(name: string, content: string | Buffer): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), `memberctl-${prefix}-`));
  return {
    path: (name) => join(dir, name),
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Standard input made of the given bytes, cut into chunks of `chunkSize` (1 puts every boundary to the test). */
export function stdinOf(content: string | Buffer, chunkSize = 1 << 16): Readable {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return Readable.from(chunks);
}

export interface ReadResult {
  source: RecordSource;
  records: SourceRecord[];
  /** The error that ended reading, if one did (after the records before it). */
  error?: unknown;
}

export async function readAll(options: SourceOptions): Promise<ReadResult> {
  const source = await openRecordSource(options);
  const records: SourceRecord[] = [];
  try {
    for await (const record of source) records.push(record);
  } catch (error) {
    return { source, records, error };
  }
  return { source, records };
}

/** Reads CSV text through stdin, cut into chunks of the given size. */
export function readCsvText(text: string | Buffer, chunkSize?: number, delimiter?: string): Promise<ReadResult> {
  return readAll({ path: '-', format: 'csv', stdin: stdinOf(text, chunkSize), delimiter });
}
