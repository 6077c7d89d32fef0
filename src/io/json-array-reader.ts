/**
 * A top-level JSON array, element by element, in flat memory: a byte scanner finds each element's bounds
 * (tracking strings, escapes and bracket depth, and counting lines), then JSON.parse reads that element alone.
 * A malformed element whose brackets balance is one error record and reading goes on; a file that ends inside
 * the array is an InputError naming the line where the unfinished element starts (after the records before it).
 */
import { InputError } from '../errors.js';
import type { InputBytes } from './input-bytes.js';
import { joinParts, oversizeRecord, parseJsonRecord } from './json-element.js';
import { MAX_RECORD_BYTES } from './record-limits.js';
import type { SourceRecord } from './source.js';

/** Before "["; expecting an element (or "]"); inside an element; after "]". */
const Phase = { Start: 0, Value: 1, Element: 2, Done: 3 } as const;

const BOM = [0xef, 0xbb, 0xbf];

const NOT_ARRAY_HINT = 'A .json file holds one array of members: [{"memberId": ...}, ...]. One object per line is NDJSON: name it .ndjson or pass --format ndjson.';

export async function* readJsonArray(bytes: InputBytes, file: string): AsyncGenerator<SourceRecord> {
  let phase: number = Phase.Start;
  let line = 1;
  let record = 0;
  let afterComma = false;
  // the element being scanned
  let parts: Buffer[] = [];
  let size = 0;
  let oversize = false;
  let startLine = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Bytes before the current chunk: a BOM is skipped only at the very start. */
  let consumed = 0;
  let failure: InputError | undefined;

  const ready: SourceRecord[] = [];
  function finishElement(): void {
    record++;
    if (oversize) ready.push(oversizeRecord(record, startLine, 'the element'));
    else ready.push(parseJsonRecord(record, startLine, joinParts(parts)));
    parts = [];
    size = 0;
    oversize = false;
  }
  function keep(part: Buffer): void {
    if (oversize) return;
    size += part.length;
    if (size > MAX_RECORD_BYTES) {
      oversize = true;
      parts = [];
    } else parts.push(part);
  }

  try {
    for (let chunk = await bytes.next(); chunk !== undefined; chunk = await bytes.next()) {
      let i = 0;
      let elementFrom = phase === Phase.Element ? 0 : -1;
      for (; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (c === 0x0a) line++;
        if (phase === Phase.Element) {
          if (inString) {
            if (escaped) escaped = false;
            else if (c === 0x5c) escaped = true;
            else if (c === 0x22) inString = false;
            continue;
          }
          if (c === 0x22) inString = true;
          else if (c === 0x7b || c === 0x5b) depth++;
          else if (c === 0x7d || c === 0x5d) {
            if (depth > 0) depth--;
            else if (c === 0x5d) {
              keep(chunk.subarray(elementFrom, i));
              finishElement();
              phase = Phase.Done;
            }
          } else if (c === 0x2c && depth === 0) {
            keep(chunk.subarray(elementFrom, i));
            finishElement();
            phase = Phase.Value;
            afterComma = true;
          }
          continue;
        }
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (phase === Phase.Value) {
          if (c === 0x5d) phase = Phase.Done; // "[]", or a trailing comma: nothing is lost
          else if (c === 0x2c) {
            record++;
            ready.push({ record, line, raw: '', error: { message: 'an empty element (two commas in a row)', hint: 'remove the extra comma' } });
          } else {
            phase = Phase.Element;
            startLine = line;
            elementFrom = i;
            depth = 0;
            inString = false;
            escaped = false;
            i--; // scan this byte again, as the element's first
          }
        } else if (phase === Phase.Start) {
          if (consumed + i < 3 && c === BOM[consumed + i]) continue;
          if (c !== 0x5b) {
            failure = notAnArray(file, line, c);
            break;
          }
          phase = Phase.Value;
        } else {
          failure = new InputError(`${file} line ${line}: unexpected content after the end of the array`, {
            code: 'input-json', file, line,
            hint: 'A .json file holds exactly one array; for one object per line use .ndjson or --format ndjson.',
          });
          break;
        }
      }
      consumed += chunk.length;
      if (phase === Phase.Element) keep(elementFrom <= 0 ? chunk : chunk.subarray(elementFrom));
      for (let k = 0; k < ready.length; k++) yield ready[k]!;
      ready.length = 0;
      if (failure) throw failure;
    }
    if (phase === Phase.Start) {
      throw new InputError(`${file} is empty: no JSON array`, { code: 'input-empty', file, line: 1, hint: NOT_ARRAY_HINT });
    }
    if (phase !== Phase.Done) {
      const where = phase === Phase.Element ? `inside the element that starts at line ${startLine}` : afterComma ? 'after a comma' : 'after "["';
      throw new InputError(`${file} line ${line}: the file ends inside the array, ${where}: truncated?`, {
        code: 'input-truncated', file, line: phase === Phase.Element ? startLine : line,
        hint: 'The array must end with "]". Export or download the file again; a string or bracket left open also swallows the rest of the file.',
      });
    }
  } finally {
    await bytes.close();
  }
}

function notAnArray(file: string, line: number, c: number): InputError {
  const what = c === 0x7b ? 'an object' : c === 0x22 ? 'a string' : `"${String.fromCharCode(c)}"`;
  return new InputError(`${file} line ${line}: the top level is ${what}, not an array`, { code: 'input-json', file, line, hint: NOT_ARRAY_HINT });
}
