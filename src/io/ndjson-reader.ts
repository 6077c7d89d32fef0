/**
 * NDJSON / JSONL: one JSON value per line, blank lines ignored. A line that is not valid JSON (or not UTF-8,
 * or larger than the record limit) is one error record and the next line is read as usual. An oversize line is
 * reported as soon as it crosses the limit, and its remaining bytes are skipped unkept.
 */
import type { InputBytes } from './input-bytes.js';
import { joinParts, oversizeRecord, parseJsonRecord } from './json-element.js';
import { MAX_RECORD_BYTES } from './record-limits.js';
import type { SourceRecord } from './source.js';

/** The records of each chunk read come as one array (never empty). */
export async function* readNdjson(bytes: InputBytes): AsyncGenerator<SourceRecord[]> {
  let line = 0;
  let record = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let oversize = false;
  let ready: SourceRecord[] = [];

  /** Ends the current line; `whole` is the line itself when it lies in one chunk (the usual case, no copy). */
  function finishLine(whole?: Buffer): void {
    line++;
    // An oversize line was reported when it crossed the limit (keep); its end only resumes reading.
    if (!oversize && (whole !== undefined || size > 0)) {
      const bytes = trimmed(whole ?? joinParts(parts), line === 1);
      if (bytes.length > 0) ready.push(parseJsonRecord(++record, line, bytes));
    }
    if (size > 0 || oversize) {
      parts = [];
      size = 0;
      oversize = false;
    }
  }
  function keep(part: Buffer): void {
    if (oversize || part.length === 0) return;
    size += part.length;
    if (size > MAX_RECORD_BYTES) {
      // Reported now, not at the line's end: a line that never ends (/dev/zero) must not hold the run.
      ready.push(oversizeRecord(++record, line + 1, 'the line'));
      oversize = true;
      parts = [];
    } else parts.push(part);
  }

  try {
    for (let chunk = await bytes.next(); chunk !== undefined; chunk = await bytes.next()) {
      let from = 0;
      for (let nl = chunk.indexOf(0x0a, from); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
        if (size === 0 && !oversize && nl - from <= MAX_RECORD_BYTES) finishLine(chunk.subarray(from, nl));
        else {
          keep(chunk.subarray(from, nl));
          finishLine();
        }
        from = nl + 1;
      }
      keep(chunk.subarray(from));
      if (ready.length > 0) {
        yield ready;
        ready = [];
      }
    }
    if (size > 0 || oversize) finishLine();
    if (ready.length > 0) yield ready;
  } finally {
    await bytes.close();
  }
}

/** Without surrounding spaces, tabs and the \r of a CRLF line end (and a BOM on the first line). */
function trimmed(bytes: Buffer, firstLine: boolean): Buffer {
  let start = firstLine && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  return start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d;
}
