/**
 * What an input's bytes are, from its first bytes (and --encoding): UTF-8 (the default), another text encoding
 * read through iconv-lite (windows-1252, latin1, utf-16le/be, …; a UTF-16 or UTF-32 BOM is recognised without the flag), or
 * a file that is not text at all (a workbook). Non-UTF-8 text is decoded to UTF-8 chunks here, and UTF-8 text
 * checked as it is read, so every reader after this point sees UTF-8 or knows where it is not. The encoding and the
 * BOM are remembered: the rejects CSV is written in them, so it opens in Excel as the input did.
 */
import { createRequire } from 'node:module';
import { InputError, UsageError } from '../errors.js';
import type { InputBytes } from './input-bytes.js';
import type { Utf8LineChecker } from './utf8-check.js';
import levenshtein from 'damerau-levenshtein';

type Iconv = typeof import('iconv-lite');
let iconvLib: Iconv | undefined;
export const iconv = (): Iconv => (iconvLib ??= createRequire(import.meta.url)('iconv-lite') as Iconv);

export interface TextEncoding {
  /** Canonical lower-case name: "utf-8", "windows-1252", "utf-16le", … */
  name: string;
  /** The input starts with a byte order mark (written back on the rejects CSV). */
  bom: boolean;
}

const COMMON = [
  'utf-8',
  'windows-1252',
  'latin1',
  'iso-8859-15',
  'utf-16le',
  'utf-16be',
  'macintosh',
  'windows-1250',
  'cp850',
  'shift_jis',
  'gb18030',
];

/** The --encoding value, checked: a name iconv-lite knows, else a usage error with a did-you-mean. */
export function checkEncodingName(name: string): string {
  const lower = name.trim().toLowerCase();
  if (lower === 'utf8' || lower === 'utf-8') return 'utf-8';
  // utf16le → utf-16le: the spelling a BOM is compared with
  if (iconv().encodingExists(lower as string)) return lower.replace(/^utf(16|32)(le|be)$/, 'utf-$1$2');
  const squeezed = (name.trim().toLowerCase() as string).replace(/[^a-z0-9]/g, '');
  const nearest = COMMON.map((known) => ({
    known,
    d: levenshtein(squeezed, known.replace(/[^a-z0-9]/g, '')).steps,
  })).sort((a, b) => a.d - b.d)[0]!;
  const suggestion = nearest.d <= 2 ? nearest.known : undefined;
  throw new UsageError(`--encoding ${name}: unknown encoding${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, {
    code: 'encoding',
    hint: `Common ones: ${COMMON.slice(0, 6).join(', ')}. Excel's "CSV" is usually windows-1252, its "Unicode text" utf-16le.`,
  });
}

/** What the first bytes say: a BOM, a UTF-16 or UTF-32 text without one, or a file format that is not text. */
export type HeadKind =
  | { kind: 'text'; encoding?: 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be'; bom: boolean }
  | { kind: 'wide-no-bom'; encoding: 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' }
  | { kind: 'binary'; what: string; hint: string };

export function sniffHead(head: Buffer, name: string): HeadKind {
  const lower = name.toLowerCase();
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { kind: 'text', encoding: 'utf-8', bom: true };
  // UTF-32LE's BOM starts with UTF-16LE's, so it is looked for first (a UTF-16LE text starting with U+0000 is not a CSV)
  if (head.subarray(0, 4).equals(Buffer.from([0xff, 0xfe, 0, 0])))
    return { kind: 'text', encoding: 'utf-32le', bom: true };
  if (head.subarray(0, 4).equals(Buffer.from([0, 0, 0xfe, 0xff])))
    return { kind: 'text', encoding: 'utf-32be', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { kind: 'text', encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { kind: 'text', encoding: 'utf-16be', bom: true };
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return zipKind(head, lower);
  // no text starts with zero bytes only: read on, /dev/zero would never end (NDJSON) or end as a 16 MB "record"
  if (head.length > 0 && !head.some((byte) => byte !== 0)) {
    return {
      kind: 'binary',
      what: `not text: its first ${head.length} bytes are all zero (NUL)`,
      hint: 'A file of NUL bytes is one whose writing never finished (a crash, a full disk, a copy cut short): export it again. A device such as /dev/zero is not an input.',
    };
  }
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) {
    return {
      kind: 'binary',
      what: 'an Excel 97–2003 workbook (.xls), which memberctl does not read',
      hint: 'In Excel: File → Save As → Excel Workbook (.xlsx) or CSV UTF-8, then read that file.',
    };
  }
  const utf32 = utf32WithoutBom(head);
  if (utf32) return { kind: 'wide-no-bom', encoding: utf32 };
  // ASCII text in UTF-16 has a zero in every other byte
  const pairs = Math.min(64, head.length >> 1);
  if (pairs >= 4) {
    let evenZeros = 0;
    let oddZeros = 0;
    for (let i = 0; i < pairs; i++) {
      if (head[2 * i] === 0) evenZeros++;
      if (head[2 * i + 1] === 0) oddZeros++;
    }
    if (oddZeros >= pairs * 0.7 && evenZeros === 0) return { kind: 'wide-no-bom', encoding: 'utf-16le' };
    if (evenZeros >= pairs * 0.7 && oddZeros === 0) return { kind: 'wide-no-bom', encoding: 'utf-16be' };
  }
  return { kind: 'text', bom: false };
}

/**
 * Text in UTF-32 has the two high bytes of every 4 zero (every character below U+10000) and, Latin text, mostly a
 * non-zero lowest byte; no UTF-8 or UTF-16 text looks so (it would be NUL characters).
 */
function utf32WithoutBom(head: Buffer): 'utf-32le' | 'utf-32be' | undefined {
  const quads = Math.min(32, head.length >> 2);
  if (quads < 4) return undefined;
  const shaped = (high: [number, number], low: number): boolean => {
    let lowSet = 0;
    for (let i = 0; i < quads; i++) {
      if (head[4 * i + high[0]] !== 0 || head[4 * i + high[1]] !== 0) return false;
      if (head[4 * i + low] !== 0) lowSet++;
    }
    return lowSet >= quads * 0.7;
  };
  return shaped([2, 3], 0) ? 'utf-32le' : shaped([0, 1], 3) ? 'utf-32be' : undefined;
}

function zipKind(head: Buffer, lower: string): HeadKind {
  const other = otherSpreadsheetZip(head, lower);
  if (other) return other;
  const text = head.toString('latin1');
  if (
    text.includes('xl/') ||
    text.includes('[Content_Types].xml') ||
    lower.endsWith('.xlsx') ||
    lower.endsWith('.xlsm')
  ) {
    return {
      kind: 'binary',
      what: 'an Excel workbook (.xlsx)',
      hint: 'Read it with --format xlsx (or name it .xlsx): memberctl reads its first sheet, or the one --sheet NAME names.',
    };
  }
  return {
    kind: 'binary',
    what: 'a zip archive, not a CSV, JSON or NDJSON file',
    hint: 'Unzip it and read the file inside.',
  };
}

/**
 * A zip that is another program's spreadsheet (OpenDocument, Apple Numbers), told by its first bytes (an .ods
 * stores its "mimetype" part first, uncompressed) or its name: named for what it is, even under an .xlsx name.
 */
export function otherSpreadsheetZip(head: Buffer, lower: string): Extract<HeadKind, { kind: 'binary' }> | undefined {
  const text = head.toString('latin1');
  if (text.includes('application/vnd.oasis.opendocument.spreadsheet') || lower.endsWith('.ods')) {
    return {
      kind: 'binary',
      what: 'an OpenDocument spreadsheet (.ods), which memberctl does not read',
      hint: 'Save it as .xlsx or CSV (LibreOffice: File → Save As), then read that file.',
    };
  }
  if (lower.endsWith('.numbers') || text.includes('Index/Document.iwa')) {
    return {
      kind: 'binary',
      what: 'an Apple Numbers document, which memberctl does not read',
      hint: 'In Numbers: File → Export To → Excel or CSV, then read that file.',
    };
  }
  return undefined;
}

/** The error for a file that is not text where text was expected, named for what it is. */
export function notTextError(file: string, kind: Extract<HeadKind, { kind: 'binary' }>): InputError {
  return new InputError(`${file} is ${kind.what}`, { code: 'input-format', file, line: 1, hint: kind.hint });
}

/** UTF-16 or UTF-32 (any byte order, or iconv-lite's BOM-guessing names): text whose file says what it is only by a BOM. */
export function isWideUnicode(name: string): boolean {
  return /^(utf-?(16|32)(le|be)?|ucs-?[24])$/.test(name);
}

export function noBomError(file: string, encoding: string): InputError {
  return new InputError(`${file} looks like ${encoding.toUpperCase()} text without a byte order mark`, {
    code: 'input-encoding',
    file,
    line: 1,
    hint: `Read it with --encoding ${encoding}.`,
  });
}

/** The same bytes decoded from `encoding` to UTF-8, chunk by chunk (a character split across chunks is carried over). */
export function decodeToUtf8(bytes: InputBytes, encoding: string): InputBytes {
  const decoder = iconv().getDecoder(encoding, { stripBOM: true });
  let ended = false;
  const pending: Buffer[] = [];
  return {
    async next() {
      if (pending.length > 0) return pending.pop();
      while (!ended) {
        const chunk = await bytes.next();
        const text = chunk === undefined ? (decoder.end() ?? '') : decoder.write(chunk);
        if (chunk === undefined) ended = true;
        if (text.length > 0) return Buffer.from(text, 'utf8');
      }
      return undefined;
    },
    unshift: (chunk) => void pending.push(chunk),
    bytesRead: () => bytes.bytesRead(),
    totalBytes: bytes.totalBytes,
    close: () => bytes.close(),
  };
}

/** The same bytes, each chunk checked by `checker` as it is first read (a chunk put back is not checked again). */
export function checkedUtf8(bytes: InputBytes, checker: Utf8LineChecker): InputBytes {
  const pending: Buffer[] = [];
  let ended = false;
  return {
    async next() {
      if (pending.length > 0) return pending.pop();
      const chunk = await bytes.next();
      if (chunk !== undefined) checker.check(chunk);
      else if (!ended) {
        ended = true;
        checker.end();
      }
      return chunk;
    },
    unshift: (chunk) => void pending.push(chunk),
    bytesRead: () => bytes.bytesRead(),
    totalBytes: bytes.totalBytes,
    close: () => bytes.close(),
  };
}
