/**
 * One JSON record's bytes → a SourceRecord: the parsed value, or an error record holding the raw text (not JSON,
 * not UTF-8, nested too deep, or a key given twice in one object).
 */
import { isUtf8 } from 'node:buffer';
import type { SourceRecord } from './source.js';
import { countNewlines, firstInvalidByte } from './utf8-check.js';
import { invalidUtf8Error, maxSizeText } from './record-limits.js';
import { firstDuplicateKey, type DuplicateKey } from './json-duplicate-keys.js';
import { firstLossyNumber, type LossyNumber } from '../schemas/exact-number.js';
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan, TOO_DEEP_MESSAGE } from '../schemas/json-depth.js';

/** The element's bytes: one slice of a chunk, or several when it crosses chunk boundaries. */
export function joinParts(parts: Buffer[]): Buffer {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

export function parseJsonRecord(record: number, line: number, bytes: Buffer): SourceRecord {
  if (!isUtf8(bytes)) {
    const at = firstInvalidByte(bytes);
    return {
      record,
      line,
      raw: bytes.toString('utf8'),
      error: invalidUtf8Error({ byte: bytes[at]!, line: line + countNewlines(bytes.subarray(0, at)) }),
    };
  }
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { record, line, raw: text, error: jsonError(text, line, (error as Error).message) };
  }
  // Kept as text, like a record that is not JSON: nothing downstream walks the deep value.
  if (mayNestDeeperThan(text, MAX_JSON_DEPTH) && nestedDeeperThan(value, MAX_JSON_DEPTH))
    return {
      record,
      line,
      raw: text,
      error: { message: TOO_DEEP_MESSAGE, hint: 'a member nests 3 levels at most; check how the file was made' },
    };
  const duplicate = firstDuplicateKey(text, value);
  if (duplicate)
    return { record, line, raw: text, error: duplicateKeyError(duplicate, line), ...readableId(value, duplicate.path) };
  const lossy = firstLossyNumber(text);
  if (lossy) return { record, line, raw: text, error: lossyNumberError(lossy, line), ...readableId(value, lossy.path) };
  return { record, line, raw: value };
}

/** The memberId of a record refused at `refusedPath`, when it is text and not itself the refused value. */
function readableId(value: unknown, refusedPath: string): { memberId?: string } {
  if (refusedPath === 'memberId' || typeof value !== 'object' || value === null) return {};
  const memberId = (value as { memberId?: unknown }).memberId;
  return typeof memberId === 'string' ? { memberId } : {};
}

/** A key given twice: refused rather than the last value taken (JSON.parse's way), naming the key and its line. */
function duplicateKeyError(duplicate: DuplicateKey, line: number): { message: string; hint: string } {
  const key = duplicate.path.length > 60 ? `${duplicate.path.slice(0, 60)}…` : duplicate.path;
  return {
    message: `the key ${JSON.stringify(key)} is given twice in one object (line ${line + duplicate.line})`,
    hint: 'keep one of them: which value is meant cannot be told, and a JSON reader would silently take the last',
  };
}

/** A number a double cannot hold as written: refused rather than sent rounded (JSON.parse rounds without a word). */
function lossyNumberError(lossy: LossyNumber, line: number): { message: string; hint: string } {
  const where =
    lossy.path === ''
      ? ''
      : ` at ${JSON.stringify(lossy.path.length > 60 ? `${lossy.path.slice(0, 60)}…` : lossy.path)}`;
  const written = lossy.written.length > 40 ? `${lossy.written.slice(0, 40)}…` : lossy.written;
  return {
    message: `the number ${written}${where} cannot be held exactly: it would be sent as ${lossy.sent} (line ${line + lossy.line})`,
    hint: `an identifier or card number is text: write it in quotes ("${written}"); a JSON number keeps about 15–17 significant digits, as doubles do`,
  };
}

export function oversizeRecord(record: number, line: number, what: string): SourceRecord {
  return {
    record,
    line,
    raw: '',
    error: {
      message: `${what} is larger than ${maxSizeText()}`,
      hint: 'a member is a few KB at most: check the export',
    },
  };
}

/** JSON.parse's message, saying where in the record (or on which line) the error is, without repeating the record. */
function jsonError(text: string, line: number, message: string): { message: string; hint: string } {
  // JSON.parse would name an invisible character: a BOM past the first line is another file's start, joined on
  if (text.startsWith('\ufeff'))
    return {
      message: 'not valid JSON: the record starts with a byte-order mark (U+FEFF), the mark a file starts with',
      hint: "were files joined into this one (cat a.ndjson b.ndjson)? Remove the marks: sed -i 's/^\\xEF\\xBB\\xBF//' FILE",
    };
  const position = /at position (\d+)/.exec(message);
  let where = '';
  if (position) {
    const before = text.slice(0, Number(position[1]));
    const errorLine = line + (before.match(/\n/g)?.length ?? 0);
    where = errorLine !== line ? `line ${errorLine}` : `character ${before.length + 1} of the record`;
  }
  const shortMessage = message
    .replace(/\s*(?:in JSON )?at position \d+/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
  return {
    message: `not valid JSON${where ? ` (${where})` : ''}: ${shortMessage}`,
    hint: 'property names and strings take double quotes; no trailing commas',
  };
}
