/**
 * openRecordSource: one streamed RecordSource for any input (file or stdin; CSV, JSON array or NDJSON;
 * gzipped or not). Opening checks what can be checked up front: the file exists and is readable, it is not
 * empty, and for CSV the header line (delimiter, duplicate names), so `headers` is known when this resolves.
 */
import { InputError, UsageError } from '../errors.js';
import { openCsv } from './csv-reader.js';
import { openInputBytes, type InputBytes } from './input-bytes.js';
import { formatFromName, sniffFormat } from './input-format.js';
import { readJsonArray } from './json-array-reader.js';
import { readNdjson } from './ndjson-reader.js';
import type { InputFormat, RecordSource, SourceOptions, SourceRecord } from './source.js';

const FORMATS: readonly InputFormat[] = ['csv', 'json', 'ndjson'];

export async function openRecordSource(options: SourceOptions): Promise<RecordSource> {
  if (options.format !== undefined && !FORMATS.includes(options.format)) {
    throw new UsageError(`--format ${String(options.format)}: expected csv, json or ndjson`, { code: 'format' });
  }
  const file = options.path === '-' ? 'stdin' : options.path;
  const named = formatFromName(options.path);
  const bytes = await openInputBytes({ path: options.path, file, gzip: named.gzip, stdin: options.stdin });
  let format: InputFormat;
  let batches: AsyncGenerator<SourceRecord[]>;
  let headers: string[] | undefined;
  let delimiter: string | undefined;
  try {
    const sniffed = await sniffContent(bytes);
    if (sniffed === undefined) throw emptyInput(file);
    format = options.format ?? named.format ?? sniffed;
    if (options.delimiter !== undefined && format !== 'csv') {
      throw new UsageError(`--delimiter applies to CSV input only (${file} is ${format})`, { code: 'csv-only-option' });
    }
    if (format === 'csv') {
      const csv = await openCsv(bytes, file, options.delimiter);
      ({ headers, delimiter } = csv);
      batches = csv.records as AsyncGenerator<SourceRecord[]>;
    } else if (format === 'json') batches = readJsonArray(bytes, file);
    else batches = readNdjson(bytes);
  } catch (error) {
    await bytes.close();
    throw error;
  }

  let closed = false;
  async function* records(): AsyncGenerator<SourceRecord> {
    try {
      for await (const batch of batches) {
        for (let i = 0; i < batch.length; i++) {
          yield batch[i]!;
          if (closed) return; // close() ends the batch generator; the rest of its batch is not handed out either
        }
      }
    } finally {
      await batches.return(undefined);
    }
  }
  return {
    file,
    format,
    headers,
    delimiter,
    totalBytes: bytes.totalBytes,
    bytesRead: () => bytes.bytesRead(),
    async close() {
      if (closed) return;
      closed = true;
      await bytes.close();
      // ends a generator paused at a yield; one still waiting for bytes sees the end of input and returns
      void batches.return(undefined).catch(() => undefined);
    },
    batches: () => batches,
    [Symbol.asyncIterator]: () => records(),
  };
}

/** Reads up to the first non-blank byte and puts the chunks back; the format that byte suggests, or undefined for an empty input. */
async function sniffContent(bytes: InputBytes): Promise<InputFormat | undefined> {
  const seen: Buffer[] = [];
  let format: InputFormat | undefined;
  for (let chunk = await bytes.next(); chunk !== undefined; chunk = await bytes.next()) {
    seen.push(chunk);
    format = sniffFormat(seen.length <= 3 ? Buffer.concat(seen) : chunk); // a BOM may come in 1-byte chunks
    if (format !== undefined) break;
  }
  for (let i = seen.length - 1; i >= 0; i--) bytes.unshift(seen[i]!);
  return format;
}

function emptyInput(file: string): InputError {
  return new InputError(`${file} is empty`, {
    code: 'input-empty',
    file,
    line: 1,
    hint: 'Check the export: a CSV file starts with a header line, a JSON file with "[", an NDJSON file with one object per line.',
  });
}
