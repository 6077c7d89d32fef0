/** Limits and messages shared by the readers. */
import type { SourceRecord } from './source.js';
import type { BadByte, InvalidUtf8Summary } from './utf8-check.js';

/**
 * The largest record (CSV row, JSON element, NDJSON line) read: far above any valid member (the API's longest
 * field is a few KB), small enough that a runaway quote cannot take the memory with it.
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export function maxSizeText(): string {
  return `${MAX_RECORD_BYTES / 1024 / 1024} MB`;
}

/**
 * The bytes are not UTF-8 (UTF-16 and workbooks are recognised before this): most likely Excel's "CSV" on Windows.
 * windows-1252 is named, not latin1: it reads ISO-8859-1 text the same except bytes 0x80–0x9F, which are
 * control characters in latin1 (never in a member's name) and €, ’, “, Š… in windows-1252.
 */
export const NOT_UTF8_HINT =
  'Name its encoding: --encoding windows-1252 (Excel\'s "CSV" on Windows; it reads latin1 / ISO-8859-1 too)';

/** A record holding bytes that are not UTF-8; the hint is said once for the file (invalidUtf8Warning), not per record. */
export function invalidUtf8Error(bad: Pick<BadByte, 'line' | 'byte'>): NonNullable<SourceRecord['error']> {
  return { message: `not valid UTF-8 (byte ${hexByte(bad.byte)} on line ${bad.line})`, cause: 'invalid-utf8' };
}

/** The one message about a file that is not (all) UTF-8, once it is read: `records` were counted invalid for it. */
export function invalidUtf8Warning(file: string, { first, mixed }: InvalidUtf8Summary, records: number): string {
  const where = `line ${first.line} has byte ${hexByte(first.byte)} at byte offset ${first.offset}`;
  const counted =
    records === 1
      ? '(the only record with such bytes, counted invalid)'
      : `(the first of ${records} records with such bytes, each counted invalid)`;
  if (mixed) {
    return `${file} mixes UTF-8 with another encoding: ${where} ${counted}. No --encoding reads both (it would garble the UTF-8 text): fix those records (--rejects lists them) and read them again`;
  }
  return `${file} is not UTF-8: ${where} ${counted}. ${NOT_UTF8_HINT}`;
}

export function hexByte(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
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
