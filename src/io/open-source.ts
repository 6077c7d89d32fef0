/**
 * openRecordSource: one streamed RecordSource for any input (file or stdin; CSV, JSON array or NDJSON;
 * gzipped or not). Opening checks what can be checked up front: the file exists and is readable, it is not
 * empty, and for CSV the header line (delimiter, duplicate names), so `headers` is known when this resolves.
 */
import { InputError, UsageError } from '../errors.js';
import { openCsv } from './csv-reader.js';
import { openInputBytes, type InputBytes } from './input-bytes.js';
import { formatFromName, sniffFormat } from './input-format.js';
import { checkEncodingName, decodeToUtf8, notTextError, sniffHead, utf16WithoutBomError, type TextEncoding } from './input-encoding.js';
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
  const raw = await openInputBytes({ path: options.path, file, gzip: named.gzip, stdin: options.stdin });
  let bytes: InputBytes = raw;
  let encoding: TextEncoding;
  let format: InputFormat;
  let batches: AsyncGenerator<SourceRecord[]>;
  let headers: string[] | undefined;
  let delimiter: string | undefined;
  try {
    encoding = await textEncoding(raw, file, options);
    if (encoding.name !== 'utf-8') bytes = decodeToUtf8(raw, encoding.name);
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
    encoding,
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

/** The input's encoding, from --encoding and its first bytes; a workbook or an archive is named for what it is. */
async function textEncoding(bytes: InputBytes, file: string, options: SourceOptions): Promise<TextEncoding> {
  const seen: Buffer[] = [];
  let size = 0;
  for (let chunk = await bytes.next(); chunk !== undefined; chunk = size >= 512 ? undefined : await bytes.next()) {
    seen.push(chunk);
    size += chunk.length;
  }
  for (let i = seen.length - 1; i >= 0; i--) bytes.unshift(seen[i]!);
  const head = Buffer.concat(seen);
  const kind = sniffHead(head, options.path);
  if (kind.kind === 'binary') throw notTextError(file, kind);
  const given = options.encoding === undefined ? undefined : checkEncodingName(options.encoding);
  if (kind.kind === 'utf16-no-bom') {
    if (given === undefined) throw utf16WithoutBomError(file, kind.encoding);
    return { name: given, bom: false };
  }
  if (given !== undefined && kind.encoding !== undefined && kind.encoding !== given) {
    throw new UsageError(`${file} starts with a ${kind.encoding.toUpperCase()} byte order mark, but --encoding says ${given}`, {
      code: 'encoding',
      hint: `Leave --encoding out (the mark tells), or give --encoding ${kind.encoding}.`,
    });
  }
  return { name: given ?? kind.encoding ?? 'utf-8', bom: kind.bom };
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
