/**
 * Invalid UTF-8 must never be silently replaced by U+FFFD: the record holding the bad bytes is reported, and the
 * file as a whole once (its first bad byte, how many records hold one, whether it also holds real UTF-8 text).
 * Chunks are checked with the native buffer.isUtf8 (fast); only a chunk that fails is scanned byte by byte
 * to find the lines of its bad bytes. A sequence split across two chunks is carried over.
 */
import { isAscii, isUtf8 } from 'node:buffer';

export interface BadByte {
  /** Physical line (counting \n) where the bad byte is. */
  line: number;
  byte: number;
  /** 0-based offset of the byte in the input's (gunzipped) bytes, as `iconv`, `xxd` and `cmp` count. */
  offset: number;
}

/** What of a text input was not UTF-8, as far as it was read: for one message about the file, not one per record. */
export interface InvalidUtf8Summary {
  first: BadByte;
  /** The input also holds well-formed multi-byte UTF-8: it mixes encodings, so no one --encoding reads it. */
  mixed: boolean;
}

/**
 * Checks every chunk of a UTF-8 input as it is read. `keepLines`: remember each bad line for the CSV reader to
 * claim (a JSON reader checks its records itself, so only the first bad byte is kept).
 */
export class Utf8LineChecker {
  /**
   * Line at the start of the next chunk, two ways: `line` counts line feeds (the JSON readers' lines), `csvLine`
   * every line break a CSV parser sees (\n, \r\n and a lone \r, as an old Mac export ends its lines). A CSV record
   * claims bad bytes by csvLine; with \n counted alone, a file whose lines end in \r had every bad byte on line 1,
   * and its header was refused as not UTF-8 for a bad byte three rows down.
   */
  private line = 1;
  private csvLine = 1;
  /** The last byte counted was a \r (a \n right after it ends the same line). */
  private afterCR = false;
  private offset = 0;
  private carry: { bytes: Buffer; offset: number } | undefined;
  /** Bad bytes found and not yet claimed by a record, in file order. */
  readonly bad: BadByte[] = [];
  private keepLines = true;
  private first: (BadByte & { lfLine: number }) | undefined;
  /** The (CSV) line of the first well-formed multi-byte character; undefined while there is none. */
  private multibyteLine: number | undefined;
  /**
   * The last line a record claimed: a CSV summary speaks of the lines read as records, not of the bytes read ahead
   * of them (how far that is depends on the chunking and on the parsing worker; --limit stops short of the end).
   */
  private claimedUpTo = 0;

  check(chunk: Buffer): void {
    let rest = chunk;
    let restOffset = this.offset;
    this.offset += chunk.length;
    if (this.carry) {
      const carry = this.carry;
      const need = sequenceLength(carry.bytes[0]!) - carry.bytes.length;
      let continued = 0;
      while (continued < need && continued < rest.length && (rest[continued]! & 0xc0) === 0x80) continued++;
      if (continued === rest.length && continued < need) {
        this.carry = { bytes: Buffer.concat([carry.bytes, rest]), offset: carry.offset };
        return;
      }
      this.carry = undefined;
      // a byte that cannot continue the sequence (a newline, a letter) ends it as invalid at once
      if (continued === need && isUtf8(Buffer.concat([carry.bytes, rest.subarray(0, need)]))) {
        this.noteMultibyte(this.csvLine);
        rest = rest.subarray(need);
        restOffset += need;
      } else this.noteBad(carry.bytes[0]!, carry.offset, this.line, this.csvLine);
    }
    const cut = incompleteTailStart(rest);
    const body = cut === rest.length ? rest : rest.subarray(0, cut);
    if (!isUtf8(body)) this.findBad(body, restOffset);
    else if (this.multibyteLine === undefined && !isAscii(body)) {
      const at = body.findIndex((byte) => byte >= 0x80);
      const before = body.subarray(0, at);
      this.noteMultibyte(this.csvLine + countNewlines(before) + lineBreaksBesideFeeds(before, this.afterCR));
    }
    const feeds = countNewlines(body);
    this.line += feeds;
    this.csvLine += feeds + lineBreaksBesideFeeds(body, this.afterCR);
    if (body.length > 0) this.afterCR = body[body.length - 1] === 0x0d;
    if (cut < rest.length) {
      this.carry = { bytes: Buffer.from(rest.subarray(cut)), offset: restOffset + cut };
      this.afterCR = false;
    }
  }

  /** At the end of the input: a sequence still waiting for its last bytes is invalid. */
  end(): void {
    if (this.carry) this.noteBad(this.carry.bytes[0]!, this.carry.offset, this.line, this.csvLine);
    this.carry = undefined;
  }

  /** Removes and returns the first bad byte on lines up to `lastLine`, if any (and drops the others up to it). */
  claim(lastLine: number): BadByte | undefined {
    if (lastLine > this.claimedUpTo) this.claimedUpTo = lastLine;
    const first = this.bad[0];
    if (!first || first.line > lastLine) return undefined;
    while (this.bad.length > 0 && this.bad[0]!.line <= lastLine) this.bad.shift();
    return first;
  }

  /** For a JSON reader, which checks its records itself: only the first bad byte is kept from now on. */
  firstOnly(): void {
    this.keepLines = false;
    this.bad.length = 0;
  }

  /**
   * Undefined while every byte read was UTF-8 (for CSV: every line a record claimed). Lines as a CSV parser counts
   * them, or by line feeds for JSON (firstOnly).
   */
  summary(): InvalidUtf8Summary | undefined {
    if (!this.first) return undefined;
    const { lfLine, ...first } = this.first;
    if (!this.keepLines) return { first: { ...first, line: lfLine }, mixed: this.multibyteLine !== undefined };
    if (first.line > this.claimedUpTo) return undefined;
    return { first, mixed: this.multibyteLine !== undefined && this.multibyteLine <= this.claimedUpTo };
  }

  private noteMultibyte(csvLine: number): void {
    this.multibyteLine ??= csvLine;
  }

  private noteBad(byte: number, offset: number, lfLine: number, csvLine: number): void {
    this.first ??= { line: csvLine, byte, offset, lfLine };
    if (!this.keepLines) return;
    const last = this.bad[this.bad.length - 1];
    if (!last || last.line !== csvLine) this.bad.push({ line: csvLine, byte, offset });
  }

  private findBad(body: Buffer, offset: number): void {
    let line = this.line;
    let csvLine = this.csvLine;
    let afterCR = this.afterCR;
    let i = 0;
    while (i < body.length) {
      const b = body[i]!;
      if (b < 0x80) {
        if (b === 0x0a) {
          line++;
          if (!afterCR) csvLine++;
        } else if (b === 0x0d) csvLine++;
        afterCR = b === 0x0d;
        i++;
        continue;
      }
      afterCR = false;
      const length = validSequenceAt(body, i);
      if (length > 0) {
        this.noteMultibyte(csvLine);
        i += length;
      } else {
        // without lines to keep, the scan only goes on to learn whether the input also holds real UTF-8
        if (!this.keepLines && this.first && this.multibyteLine !== undefined) return;
        this.noteBad(b, offset + i, line, csvLine);
        i++;
      }
    }
  }
}

/** Line breaks in `buf` that are not line feeds: each \r, less those a \n follows (counted as the feed). */
function lineBreaksBesideFeeds(buf: Buffer, afterCR: boolean): number {
  let count = afterCR && buf[0] === 0x0a ? -1 : 0;
  for (let i = buf.indexOf(0x0d); i !== -1; i = buf.indexOf(0x0d, i + 1)) {
    if (buf[i + 1] !== 0x0a) count++;
  }
  return count;
}

export function countNewlines(buf: Buffer): number {
  let count = 0;
  let i = buf.indexOf(0x0a);
  while (i !== -1) {
    count++;
    i = buf.indexOf(0x0a, i + 1);
  }
  return count;
}

/** Length of a well-formed UTF-8 sequence starting at i, or 0 (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF). */
function validSequenceAt(buf: Buffer, i: number): number {
  const b = buf[i]!;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) length = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    length = 3;
    if (b === 0xe0) low = 0xa0;
    if (b === 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4;
    if (b === 0xf0) low = 0x90;
    if (b === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > buf.length) return 0;
  const second = buf[i + 1]!;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    const c = buf[i + k]!;
    if (c < 0x80 || c > 0xbf) return 0;
  }
  return length;
}

function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}

/** Where a multi-byte sequence cut off by the end of the chunk starts (buf.length when none is). */
function incompleteTailStart(buf: Buffer): number {
  for (let back = 1; back <= 3 && back <= buf.length; back++) {
    const b = buf[buf.length - back]!;
    if (b < 0x80) return buf.length;
    if (b >= 0xc0) return back < (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) && b <= 0xf4 ? buf.length - back : buf.length;
  }
  return buf.length;
}

/** Offset of the first byte that does not start a well-formed sequence (0 when none is found). */
export function firstInvalidByte(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    if (buf[i]! < 0x80) i++;
    else {
      const length = validSequenceAt(buf, i);
      if (length === 0) return i;
      i += length;
    }
  }
  return 0;
}
