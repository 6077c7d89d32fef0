/**
 * csv-parse's parser core, fed buffer by buffer. We use the documented Parser (a Transform stream) only to build
 * it: its `api.parse(buf, end, push, close)` is what the stream itself calls. Calling it directly lets us read the
 * live `info` counters (lines, empty lines) at the moment each record is emitted, without the `info: true`
 * option, which copies a dozen fields per record and costs a large share of the parse rate (docs/performance.md).
 */
import { parse, CsvError } from 'csv-parse';

export interface CsvCoreInfo {
  /** csv-parse's line counter when the record is emitted (it counts a CRLF inside quotes twice: used only as a hint). */
  readonly lines: number;
  /** Empty lines skipped so far. */
  readonly empty_lines: number;
}

export interface CsvCore {
  readonly info: CsvCoreInfo;
  /**
   * Parses one buffer (or flushes with end = true); records come out through `push`, with the indices of their
   * quoted cells equal to the null token (when one is set and any is). Returns a CsvError on failure.
   */
  parse(
    buf: Buffer | undefined,
    end: boolean,
    push: (cells: string[], quotedNullTokens: number[] | undefined) => void,
  ): CsvError | undefined;
}

export interface CsvCoreOptions {
  delimiter: string;
  maxRecordSize: number;
  /**
   * --null-token: find the quoted cells that equal it. Only then is csv-parse given a `cast`, whose per-field
   * context (it tells a quoted field) costs an object per cell: a run without a null token does not pay for it.
   */
  nullToken?: string;
}

interface ParserInternals {
  api?: {
    parse(
      buf: Buffer | undefined,
      end: boolean,
      push: (record: string[]) => void,
      close: () => void,
    ): Error | undefined;
  };
  info: CsvCoreInfo & { records: number };
}

export function createCsvCore(options: CsvCoreOptions): CsvCore {
  const { nullToken } = options;
  let quoted: number[] | undefined;
  const cast =
    nullToken === undefined || nullToken === ''
      ? undefined
      : (value: string, context: { quoting: boolean; index: number }): string => {
          if (context.quoting && value.trim() === nullToken) (quoted ??= []).push(context.index);
          return value;
        };
  const parser = parse({
    ...(cast ? { cast } : {}),
    delimiter: options.delimiter,
    bom: true,
    encoding: 'utf8',
    // a quote inside an unquoted value (5" disk) is data, not an error
    relax_quotes: true,
    // rows of another length are reported by our reader, per record, instead of stopping the file
    relax_column_count: true,
    skip_empty_lines: true,
    // every line end, even mixed in one file (an export appended to by another tool); CRLF is tried before CR
    record_delimiter: ['\r\n', '\n', '\r'],
    max_record_size: options.maxRecordSize,
  }) as unknown as ParserInternals;
  const api = parser.api;
  if (!api || typeof api.parse !== 'function') {
    // a csv-parse upgrade changed its internals: fail loudly rather than misread files
    throw new Error('csv-parse: Parser.api.parse not found (csv-parse version changed?)');
  }
  const noop = (): void => undefined;
  const info = parser.info;
  return {
    info,
    parse: (buf, end, push) =>
      api.parse(
        buf,
        end,
        (cells) => {
          // csv-parse takes the width of its first record as the one to expect, and builds a CsvError (a stack trace and
          // a JSON copy of the record) for each record of another width, even relaxed: 25 µs a row, 5x the parse, for
          // rows that merely leave out trailing empty cells. Its record count at 0, each record is the first again.
          // (Nothing else reads the count: no `from`/`to` option, and our lines come from `lines`/`empty_lines`.)
          info.records = 0;
          const found = quoted;
          quoted = undefined;
          push(cells, found);
        },
        noop,
      ) as CsvError | undefined,
  };
}

export { CsvError };
