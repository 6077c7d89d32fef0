/**
 * The byte scanner behind the JSON array reader: fed chunk by chunk, it finds each top-level element's bounds
 * (strings, escapes, bracket depth), counts lines, and turns each element into a record. The hot loop works on
 * local copies of its state (written back once per chunk): field or closure access per byte costs ~3x.
 */
import { InputError } from '../errors.js';
import { joinParts, oversizeRecord, parseJsonRecord } from './json-element.js';
import { MAX_RECORD_BYTES } from './record-limits.js';
import type { SourceRecord } from './source.js';

/** Before "["; expecting an element (or "]"); inside an element; after "]". */
export const Phase = { Start: 0, Value: 1, Element: 2, Done: 3 } as const;

const BOM = [0xef, 0xbb, 0xbf];
const NOT_ARRAY_HINT =
  'A .json file holds one array of members: [{"memberId": ...}, ...]. One object per line is NDJSON: name it .ndjson or pass --format ndjson.';

export class JsonArrayScanner {
  phase: number = Phase.Start;
  line = 1;
  /** Line where the element being scanned starts. */
  startLine = 0;
  afterComma = false;
  /** Records completed by the last scan(), in order; the caller empties it. */
  readonly ready: SourceRecord[] = [];
  private record = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private parts: Buffer[] = [];
  private size = 0;
  private oversize = false;
  /** Bytes before the current chunk: a BOM is skipped only at the very start. */
  private consumed = 0;

  constructor(private readonly file: string) {}

  /** Scans one chunk; throws an InputError (after filling `ready` with the records before it) when the array is broken. */
  scan(chunk: Buffer): InputError | undefined {
    let { phase, line, depth, inString, escaped } = this;
    let elementFrom = phase === Phase.Element ? 0 : -1;
    let failure: InputError | undefined;
    const length = chunk.length;
    for (let i = 0; i < length; i++) {
      const c = chunk[i]!;
      if (c === 0x0a) line++;
      if (phase === Phase.Element) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
        } else if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (depth > 0) depth--;
          else if (c === 0x5d) {
            this.finishElement(chunk.subarray(elementFrom, i));
            phase = Phase.Done;
          }
        } else if (c === 0x2c && depth === 0) {
          this.finishElement(chunk.subarray(elementFrom, i));
          phase = Phase.Value;
          this.afterComma = true;
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (phase === Phase.Value) {
        if (c === 0x5d)
          phase = Phase.Done; // "[]", or a trailing comma: nothing is lost
        else if (c === 0x2c) {
          this.ready.push({
            record: ++this.record,
            line,
            raw: '',
            error: { message: 'an empty element (two commas in a row)', hint: 'remove the extra comma' },
          });
        } else {
          phase = Phase.Element;
          this.startLine = line;
          elementFrom = i;
          depth = 0;
          escaped = false;
          inString = false;
          i--; // scan this byte again, as the element's first
        }
      } else if (phase === Phase.Start) {
        if (this.consumed + i < 3 && c === BOM[this.consumed + i]) continue;
        if (c !== 0x5b) {
          failure = notAnArray(this.file, line, c);
          break;
        }
        phase = Phase.Value;
      } else {
        failure = new InputError(`${this.file} line ${line}: unexpected content after the end of the array`, {
          code: 'input-json',
          file: this.file,
          line,
          hint: 'A .json file holds exactly one array; for one object per line use .ndjson or --format ndjson.',
        });
        break;
      }
    }
    if (phase === Phase.Element && !failure) this.keep(elementFrom <= 0 ? chunk : chunk.subarray(elementFrom));
    Object.assign(this, { phase, line, depth, inString, escaped });
    this.consumed += length;
    return failure;
  }

  /** At the end of the input: the error for an array that never closed, if it did not. */
  end(): InputError | undefined {
    const { file, line, phase, startLine } = this;
    if (phase === Phase.Start)
      return new InputError(`${file} is empty: no JSON array`, {
        code: 'input-empty',
        file,
        line: 1,
        hint: NOT_ARRAY_HINT,
      });
    if (phase === Phase.Done) return undefined;
    const where =
      phase === Phase.Element
        ? `inside the element that starts at line ${startLine}`
        : this.afterComma
          ? 'after a comma'
          : 'after "["';
    return new InputError(`${file} line ${line}: the file ends inside the array, ${where}: truncated?`, {
      code: 'input-truncated',
      file,
      line: phase === Phase.Element ? startLine : line,
      hint: 'The array must end with "]". Export or download the file again; a string or bracket left open also swallows the rest of the file.',
    });
  }

  private finishElement(last: Buffer): void {
    if (this.size === 0 && !this.oversize && last.length <= MAX_RECORD_BYTES) {
      this.ready.push(parseJsonRecord(++this.record, this.startLine, last)); // the usual case: the element lies in one chunk
      return;
    }
    this.keep(last);
    // An oversize element was reported when it crossed the limit (keep).
    if (!this.oversize) this.ready.push(parseJsonRecord(++this.record, this.startLine, joinParts(this.parts)));
    this.parts = [];
    this.size = 0;
    this.oversize = false;
  }

  private keep(part: Buffer): void {
    if (this.oversize) return;
    this.size += part.length;
    if (this.size > MAX_RECORD_BYTES) {
      // Reported now, not at the element's end: an element that never ends must not hold the run.
      this.ready.push(oversizeRecord(++this.record, this.startLine, 'the element'));
      this.oversize = true;
      this.parts = [];
    } else this.parts.push(part);
  }
}

function notAnArray(file: string, line: number, c: number): InputError {
  const what = c === 0x7b ? 'an object' : c === 0x22 ? 'a string' : `"${String.fromCharCode(c)}"`;
  return new InputError(`${file} line ${line}: the top level is ${what}, not an array`, {
    code: 'input-json',
    file,
    line,
    hint: NOT_ARRAY_HINT,
  });
}
