/**
 * The CSV parser's core, fed buffer by buffer: our scanner (csv-scanner.ts), which reads exactly as csv-parse did
 * with the options the reader gave it, at a fraction of its cost (docs/decisions.md, "CSV parsing"). csv-parse
 * stays as the oracle of its property test (test/io/csv-scanner.test.ts).
 */
import { CsvError, CsvScanner } from './csv-scanner.js';

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
  /** --null-token: find the quoted cells that equal it (trimmed). */
  nullToken?: string;
}

export function createCsvCore(options: CsvCoreOptions): CsvCore {
  return new CsvScanner(options);
}

export { CsvError };
