/** Why the CSV scanner cannot read on (csv-scanner.ts): the cause travels as the code, the message is csv-parse's. */
export type CsvErrorCode = 'CSV_QUOTE_NOT_CLOSED' | 'CSV_MAX_RECORD_SIZE';

/** A file the scanner cannot read on: no stack trace is wanted, but an Error is what callers expect to hold. */
export class CsvError extends Error {
  constructor(
    readonly code: CsvErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// csv-parse's messages, word for word

export function quoteNotClosed(line: number): CsvError {
  return new CsvError(
    'CSV_QUOTE_NOT_CLOSED',
    `Quote Not Closed: the parsing is finished with an opening quote at line ${line}`,
  );
}

export function recordTooLarge(maxSize: number, line: number): CsvError {
  return new CsvError(
    'CSV_MAX_RECORD_SIZE',
    `Max Record Size: record exceed the maximum number of tolerated bytes of ${maxSize} at line ${line}`,
  );
}
