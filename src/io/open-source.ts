/**
 * openRecordSource: one streamed RecordSource for any input (file or stdin; CSV, JSON array or NDJSON;
 * gzipped or not). Opening checks what can be checked up front: the file exists and is readable, it is not
 * empty, and for CSV the header line (delimiter, duplicate names), so `headers` is known when this resolves.
 */
import { InputError, UsageError } from '../errors.js';
import { openCsv } from './csv-reader.js';
import { csvWorkerEntry } from './csv-worker-client.js';
import { openInputBytes, type InputBytes } from './input-bytes.js';
import { formatFromName, sniffFormat } from './input-format.js';
import {
  checkEncodingName,
  checkedUtf8,
  decodeToUtf8,
  isWideUnicode,
  notTextError,
  otherSpreadsheetZip,
  sniffHead,
  noBomError,
  type TextEncoding,
} from './input-encoding.js';
import { readJsonArray } from './json-array-reader.js';
import { readNdjson } from './ndjson-reader.js';
import { Utf8LineChecker } from './utf8-check.js';
import type { InputFormat, RecordSource, SourceOptions, SourceRecord } from './source.js';

const FORMATS: readonly InputFormat[] = ['csv', 'json', 'ndjson', 'xlsx'];

export async function openRecordSource(options: SourceOptions): Promise<RecordSource> {
  if (options.format !== undefined && !FORMATS.includes(options.format)) {
    throw new UsageError(`--format ${String(options.format)}: expected csv, json, ndjson or xlsx`, { code: 'format' });
  }
  const file = options.path === '-' ? 'stdin' : options.path;
  const named = formatFromName(options.path);
  if (options.sheet !== undefined && (options.format ?? named.format) !== 'xlsx') {
    throw new UsageError(`--sheet applies to workbooks only (.xlsx; ${file} is not one)`, {
      code: 'xlsx-only-option',
      hint: 'For a workbook with another name, add --format xlsx.',
    });
  }
  const raw = await openInputBytes({ path: options.path, file, gzip: named.gzip, stdin: options.stdin });
  let opened: Opened;
  try {
    opened =
      (options.format ?? named.format) === 'xlsx'
        ? await openWorkbook(raw, file, options)
        : await openText(raw, file, options, named.format);
  } catch (error) {
    await raw.close();
    throw error;
  }
  const { format, encoding, headers, headerLine, delimiter, batches, utf8, progress, encodeRows } = opened;

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
    headerLine,
    delimiter,
    totalBytes: progress ? progress.totalBytes : raw.totalBytes,
    bytesRead: progress ? progress.bytesRead : () => raw.bytesRead(),
    invalidUtf8: () => utf8?.summary(),
    async close() {
      if (closed) return;
      closed = true;
      await raw.close();
      await opened.release?.();
      // ends a generator paused at a yield; one still waiting for bytes sees the end of input and returns
      void batches.return(undefined).catch(() => undefined);
    },
    batches: () => batches,
    encodeRows: (encoder) => !closed && encodeRows !== undefined && encodeRows(encoder),
    [Symbol.asyncIterator]: () => records(),
  };
}

interface Opened {
  format: InputFormat;
  encoding: TextEncoding;
  headers?: string[];
  headerLine?: number;
  delimiter?: string;
  batches: AsyncGenerator<SourceRecord[]>;
  /** UTF-8 text: the checker that saw every byte. */
  utf8?: Utf8LineChecker;
  /** A workbook: progress through its sheet (not through the file's bytes, which are read out of order). */
  progress?: { totalBytes: number; bytesRead(): number };
  /** A workbook: releases the file it reads in place. */
  release?: () => Promise<void>;
  /** CSV parsed in a worker: see RecordSource.encodeRows. */
  encodeRows?: RecordSource['encodeRows'];
}

async function openWorkbook(raw: InputBytes, file: string, options: SourceOptions): Promise<Opened> {
  if (options.delimiter !== undefined || options.encoding !== undefined) {
    throw new UsageError(
      `--${options.delimiter !== undefined ? 'delimiter' : 'encoding'} applies to text input only (${file} is a workbook)`,
      { code: 'csv-only-option' },
    );
  }
  if (options.padShortRows) {
    throw new UsageError(
      `--pad-short-rows applies to CSV input only (${file} is a workbook, whose rows have no cells left out: an empty cell is read as empty)`,
      { code: 'csv-only-option' },
    );
  }
  await checkWorkbookHead(raw, file, options.path);
  // the workbook reader (yauzl, saxes) is loaded for a workbook only: a CSV or JSON run does not pay for it
  const [{ openWorkbookZip }, { openXlsx }] = await Promise.all([
    import('./xlsx/workbook-zip.js'),
    import('./xlsx-reader.js'),
  ]);
  const zip = await openWorkbookZip(raw, file, options.path);
  try {
    const workbook = await openXlsx(zip, file, options.sheet);
    return {
      format: 'xlsx',
      encoding: { name: 'utf-8', bom: false },
      headers: workbook.headers,
      headerLine: workbook.headerLine,
      batches: workbook.records,
      progress: { totalBytes: workbook.totalBytes, bytesRead: workbook.bytesRead },
      release: () => zip.close(),
    };
  } catch (error) {
    await zip.close();
    throw error;
  }
}

/**
 * A workbook is a zip (PK…). Text under a workbook's name (a CSV or Excel's UTF-16 "Unicode text" saved as .xlsx)
 * is named as text with the flag that reads it, and an .xls/.ods/Numbers file as what it is, whatever its name.
 */
async function checkWorkbookHead(raw: InputBytes, file: string, path: string): Promise<void> {
  const head = await peekHead(raw);
  if (head.length === 0) return;
  if (head.subarray(0, 2).toString('latin1') === 'PK') {
    const other = otherSpreadsheetZip(head, path.toLowerCase());
    if (other) throw notTextError(file, other);
    return;
  }
  const kind = sniffHead(head, path);
  if (kind.kind === 'binary') throw notTextError(file, kind);
  const wide = kind.encoding !== undefined && isWideUnicode(kind.encoding);
  if (wide || !head.some((byte) => byte < 0x09)) {
    const encoding = kind.kind === 'wide-no-bom' ? ` --encoding ${kind.encoding}` : '';
    throw new InputError(
      `${file} is ${wide ? `${kind.encoding!.slice(0, 6).toUpperCase()} ` : ''}text, not an Excel workbook (.xlsx)`,
      {
        code: 'input-xlsx',
        file,
        hint: `Read it as text with --format csv${encoding} (Excel's "CSV" and "Unicode text" are text files), or save it from Excel as .xlsx.`,
      },
    );
  }
}

async function openText(
  raw: InputBytes,
  file: string,
  options: SourceOptions,
  named: InputFormat | undefined,
): Promise<Opened> {
  const encoding = await textEncoding(raw, file, options);
  const utf8 = encoding.name === 'utf-8' ? new Utf8LineChecker() : undefined;
  const bytes = utf8 ? checkedUtf8(raw, utf8) : decodeToUtf8(raw, encoding.name);
  const sniffed = await sniffContent(bytes);
  if (sniffed === undefined) throw emptyInput(file);
  const format = options.format ?? named ?? sniffed;
  for (const [flag, given] of [
    ['--delimiter', options.delimiter !== undefined],
    ['--pad-short-rows', options.padShortRows === true],
  ] as const) {
    if (given && format !== 'csv')
      throw new UsageError(`${flag} applies to CSV input only (${file} is ${format})`, { code: 'csv-only-option' });
  }
  if (format === 'csv') {
    const csv = await openCsv(bytes, file, {
      delimiter: options.delimiter,
      utf8,
      worker: csvWorkerEntry(raw.totalBytes, options.parseAhead === true, options.csvWorker),
      padShortRows: options.padShortRows,
      nullToken: options.nullToken,
      workerHeapMb: options.csvWorkerHeapMb,
    });
    return {
      format,
      encoding,
      headers: csv.headers,
      headerLine: csv.headerLine,
      delimiter: csv.delimiter,
      batches: csv.records as AsyncGenerator<SourceRecord[]>,
      utf8,
      encodeRows: csv.encodeRows,
    };
  }
  // a JSON reader checks each record's bytes itself: only the first bad byte is kept
  utf8?.firstOnly();
  return { format, encoding, batches: format === 'json' ? readJsonArray(bytes, file) : readNdjson(bytes), utf8 };
}

/** At least the first 512 bytes (or all, if fewer), put back so that the reader starts from the beginning. */
async function peekHead(bytes: InputBytes): Promise<Buffer> {
  const seen: Buffer[] = [];
  let size = 0;
  for (let chunk = await bytes.next(); chunk !== undefined; chunk = size >= 512 ? undefined : await bytes.next()) {
    seen.push(chunk);
    size += chunk.length;
  }
  for (let i = seen.length - 1; i >= 0; i--) bytes.unshift(seen[i]!);
  return Buffer.concat(seen);
}

/** The input's encoding, from --encoding and its first bytes; a workbook or an archive is named for what it is. */
async function textEncoding(bytes: InputBytes, file: string, options: SourceOptions): Promise<TextEncoding> {
  const head = await peekHead(bytes);
  const kind = sniffHead(head, options.path);
  if (kind.kind === 'binary') throw notTextError(file, kind);
  const given = options.encoding === undefined ? undefined : checkEncodingName(options.encoding);
  if (kind.kind === 'wide-no-bom') {
    if (given === undefined) throw noBomError(file, kind.encoding);
    return { name: given, bom: false };
  }
  if (given !== undefined && kind.encoding !== undefined && kind.encoding !== given) {
    throw new UsageError(
      `${file} starts with a ${kind.encoding.toUpperCase()} byte order mark, but --encoding says ${given}`,
      {
        code: 'encoding',
        hint: `Leave --encoding out (the mark tells), or give --encoding ${kind.encoding}.`,
      },
    );
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
