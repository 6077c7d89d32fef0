/**
 * The oracle of the CSV scanner's property test: csv-parse's parser core as the reader drove it until the scanner
 * replaced it (docs/decisions.md, "CSV parsing"), fed buffer by buffer. The documented Parser (a Transform stream)
 * only builds it: its `api.parse(buf, end, push, close)` is what the stream itself calls, and calling it directly
 * shows the live `info` counters (lines, empty lines) at the moment each record is emitted.
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

interface ParserApi {
  parse(buf: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  /** Ends the field being read: pushes it onto `state.record`, then clears `state.wasQuoting`. */
  __onField?: () => Error | undefined;
  state?: { wasQuoting: boolean; record: unknown[] };
}

interface ParserInternals {
  api?: ParserApi;
  info: CsvCoreInfo & { records: number };
}

export function createCsvCore(options: CsvCoreOptions): CsvCore {
  const parser = parse({
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
  const quoted = options.nullToken ? watchQuotedNullTokens(api, options.nullToken) : undefined;
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
          push(cells, quoted?.take());
        },
        noop,
      ) as CsvError | undefined,
  };
}

/**
 * Notes, record by record, which quoted fields equal the null token (trimmed). csv-parse tells a quoted field only
 * through `cast`, whose context object (a dozen fields copied per cell) made a run with --null-token 7x slower
 * (200,000 rows: 1.0 → 7.2 s CPU); wrapping its end-of-field step and reading `state.wasQuoting` costs a call per
 * cell. Only with a null token: a run without one keeps csv-parse's own step.
 */
function watchQuotedNullTokens(api: ParserApi, nullToken: string): { take(): number[] | undefined } {
  const onField = api.__onField;
  const state = api.state;
  if (typeof onField !== 'function' || typeof state?.wasQuoting !== 'boolean' || !Array.isArray(state.record)) {
    throw new Error('csv-parse: Parser.api.__onField or state.wasQuoting not found (csv-parse version changed?)');
  }
  let found: number[] | undefined;
  api.__onField = function (this: ParserApi) {
    const wasQuoting = state.wasQuoting;
    const error = onField.call(this);
    if (wasQuoting && error === undefined) {
      const { record } = state;
      const cell = record[record.length - 1];
      if (typeof cell === 'string' && cell.trim() === nullToken) (found ??= []).push(record.length - 1);
    }
    return error;
  };
  return {
    take() {
      const taken = found;
      found = undefined;
      return taken;
    },
  };
}

export { CsvError };
