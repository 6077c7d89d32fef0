/** Limits and messages shared by the readers. */
import type { BadByte } from './utf8-check.js';

/**
 * The largest record (CSV row, JSON element, NDJSON line) read: far above any valid member (the API's longest
 * field is a few KB), small enough that a runaway quote cannot take the memory with it.
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export function maxSizeText(): string {
  return `${MAX_RECORD_BYTES / 1024 / 1024} MB`;
}

/** The bytes are not UTF-8 (UTF-16 and workbooks are recognised before this): most likely Excel's Windows-1252. */
export const NOT_UTF8_HINT = 'the file is not UTF-8: name its encoding, e.g. --encoding windows-1252 (Excel\'s "CSV" on Windows) or --encoding latin1';

export function invalidUtf8Error(bad: BadByte): { message: string; hint: string } {
  const byte = bad.byte.toString(16).toUpperCase().padStart(2, '0');
  return {
    message: `not valid UTF-8 (byte 0x${byte} on line ${bad.line})`,
    hint: NOT_UTF8_HINT,
  };
}

/** Physical line breaks inside a record's cells: \n, \r\n or a lone \r each count once. */
export function countCellNewlines(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let i = 0; i < cell.length; i++) {
      const c = cell.charCodeAt(i);
      if (c === 10 || (c === 13 && cell.charCodeAt(i + 1) !== 10)) count++;
    }
  }
  return count;
}
