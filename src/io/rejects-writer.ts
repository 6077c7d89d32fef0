/**
 * --rejects: one line per record that was not imported, for validate and import alike.
 * NDJSON: {record, line, memberId, stage, reason, input}. CSV: the input's own columns, then `stage` and `error`,
 * so the file can be fixed and fed back as it is (the mapper ignores a trailing stage/error pair). A row refused for
 * its number of cells is written with its cells as read, then stage and error: fed back unfixed, it is refused
 * again, never read with its cells under the wrong headers.
 */
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { openOutputFile, type LineWriter } from './output-file.js';
import { iconv, isWideUnicode, type TextEncoding } from './input-encoding.js';

export type RejectStage = 'invalid' | 'skipped' | 'rejected' | 'failed';

export interface RejectEntry {
  record: number;
  line: number;
  memberId?: string;
  stage: RejectStage;
  reason: string;
  /** The record as read: CSV cells, the parsed JSON value, or the raw text of a record that could not be parsed. */
  input: unknown;
}

export interface RejectsWriterOptions {
  /** The CSV input's header; required for a .csv rejects file. */
  headers?: readonly string[];
  delimiter?: string;
  /**
   * The input's encoding: a CSV rejects file is written in it, so it opens as the input did and reads back with the
   * same flags. UTF-8 keeps the input's BOM (or its absence); UTF-16 and UTF-32 always get one, so that the file reads back
   * even without --encoding (a UTF-16 or UTF-32 file without one is read only with --encoding: docs/reference/validate.md).
   */
  encoding?: TextEncoding;
  /** --force: replace the file even when it is not the one memberctl last wrote there (output-file.ts). */
  force?: boolean;
}

export interface RejectsWriter {
  readonly format: 'ndjson' | 'csv';
  write(entry: RejectEntry): Promise<void> | undefined;
  close(): Promise<void>;
  /** Drops the file being written (an earlier file at the path stays as it was). */
  abort(): Promise<void>;
}

export function rejectsFormatOf(path: string): 'ndjson' | 'csv' {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  throw new UsageError(`--rejects ${path}: the file name must end in .ndjson, .jsonl or .csv`, {
    code: 'rejects-format',
    hint: 'The extension chooses the format: rejects.ndjson (any input) or rejects.csv (CSV input).',
  });
}

export async function openRejectsWriter(path: string, options: RejectsWriterOptions = {}): Promise<RejectsWriter> {
  const format = rejectsFormatOf(path);
  const headers = options.headers ? withoutRejectsColumns(options.headers) : undefined;
  if (format === 'csv' && !headers) {
    throw new UsageError(`--rejects ${path}: a CSV rejects file needs CSV input (its own columns are written back)`, {
      code: 'rejects-format',
      hint: 'For JSON or NDJSON input use --rejects rejects.ndjson; `jq -c .input` turns it back into NDJSON input.',
    });
  }
  // cells under an earlier stage/error pair (a rejects file fed back) are dropped, not reported as extra
  const width = options.headers?.length ?? 0;
  const encoding = format === 'csv' ? options.encoding : undefined;
  const bom = encoding !== undefined && (encoding.bom || isWideUnicode(encoding.name));
  const encoder =
    encoding && (encoding.name !== 'utf-8' || bom) ? iconv().getEncoder(encoding.name, { addBOM: bom }) : undefined;
  const file = await openOutputFile(path, 'rejects', {
    force: options.force,
    ...(encoder ? { encode: (text: string) => encoder.write(text) } : {}),
  });
  if (format === 'ndjson')
    return {
      format,
      write: (entry) => file.writeLine(ndjsonLine(entry, headers, width)),
      close: () => file.close(),
      abort: () => file.abort(),
    };
  return csvRejects(file, headers!, width, options.delimiter ?? ',');
}

function csvRejects(file: LineWriter, headers: readonly string[], width: number, delimiter: string): RejectsWriter {
  file.writeLine(csvLine([...headers, 'stage', 'error'], delimiter));
  return {
    format: 'csv',
    write(entry) {
      let cells: string[];
      if (Array.isArray(entry.input) && entry.input.length !== width) {
        // a row refused for its number of cells is written back as read, every cell where it was: padded or cut
        // to the header, its cells would sit under headers that look right (and a cut one would lose a value)
        return file.writeLine(csvLine([...entry.input.map(cellText), entry.stage, entry.reason], delimiter));
      }
      if (Array.isArray(entry.input)) {
        cells = entry.input.slice(0, headers.length).map(cellText);
      } else {
        // a record that could not be split into cells: its raw text goes in the first column, to be fixed by hand
        cells = [typeof entry.input === 'string' ? entry.input : (JSON.stringify(entry.input) ?? '')];
      }
      while (cells.length < headers.length) cells.push('');
      return file.writeLine(csvLine([...cells, entry.stage, entry.reason], delimiter));
    },
    close: () => file.close(),
    abort: () => file.abort(),
  };
}

/** Writes one CSV line (RFC 4180 quoting) so csv-parse, Excel and our reader read the cells back unchanged. */
export function csvLine(cells: readonly string[], delimiter: string): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += delimiter;
    line += quoteCell(cells[i]!, delimiter);
  }
  return line;
}

function quoteCell(cell: string, delimiter: string): string {
  const needsQuotes =
    cell.includes(delimiter) ||
    cell.includes('"') ||
    cell.includes('\n') ||
    cell.includes('\r') ||
    cell !== cell.trim();
  return needsQuotes ? `"${cell.replaceAll('"', '""')}"` : cell;
}

const cellText = (cell: unknown): string => (cell === undefined || cell === null ? '' : String(cell));

function ndjsonLine(entry: RejectEntry, headers: readonly string[] | undefined, width: number): string {
  const { record, line, memberId, stage, reason } = entry;
  return JSON.stringify({
    record,
    line,
    memberId: memberId ?? null,
    stage,
    reason,
    input: readableInput(entry.input, headers, width),
  });
}

/**
 * CSV cells become {header: cell} (a prototype-less map: headers are data), so the line reads on its own; a row of
 * another width than the header stays the array of its cells as read (they do not sit under their headers).
 */
function readableInput(input: unknown, headers: readonly string[] | undefined, width: number): unknown {
  if (!headers || !Array.isArray(input) || input.length !== width) return input;
  const byHeader: Record<string, unknown> = Object.create(null);
  headers.forEach((header, i) => (byHeader[header] = input[i] ?? ''));
  return byHeader;
}

/** Feeding a rejects CSV back and rejecting again must not stack a second stage/error pair. */
function withoutRejectsColumns(headers: readonly string[]): readonly string[] {
  const n = headers.length;
  const norm = (h: string) => h.toLowerCase().trim();
  return n >= 2 && norm(headers[n - 2]!) === 'stage' && norm(headers[n - 1]!) === 'error'
    ? headers.slice(0, -2)
    : headers;
}
