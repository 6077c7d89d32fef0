/**
 * The parts of a workbook's zip, read in place: yauzl reads the central directory at the zip's end, then inflates
 * each part from where it lies in the file. Nothing is copied to disk (a workbook on a pipe is held in memory, see
 * workbook-zip.ts). Each part's size, as the directory declares it, is checked against a bound before a byte is
 * inflated, and yauzl holds the part to that declared size while it inflates (a zip bomb cannot lie its way past).
 */
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { InputError } from '../../errors.js';

const MB = 1024 * 1024;
/** A workbook holds a few dozen parts; one with images may hold thousands. The directory is held while reading. */
export const MAX_ZIP_ENTRIES = 10_000;
/** workbook.xml, styles.xml, relationships: kilobytes in any export; megabytes with thousands of named ranges. */
export const MAX_SMALL_PART_BYTES = 64 * MB;
/** The shared strings table is held in memory whole while the sheet is read (sheet cells point into it). */
export const MAX_SHARED_STRINGS_BYTES = 256 * MB;
/** A sheet is streamed: the bound is on time, not memory (1,048,575 rows of 7 columns unzip to about 160 MB). */
export const MAX_SHEET_BYTES = 4096 * MB;

export interface ZipParts {
  /** The part's entry (names are matched ignoring case, as OPC part names are), or undefined. */
  entry(name: string): Entry | undefined;
  /** The part's inflated bytes as they come; refused up front when it declares more than `bound` bytes. */
  chunks(name: string, bound: number): AsyncGenerator<Buffer>;
  /** A small part's whole bytes. */
  bytes(name: string, bound: number): Promise<Buffer>;
  /** Stops reading: the part being read ends, and the file is released. Safe to call twice. */
  close(): Promise<void>;
  readonly closed: boolean;
}

/**
 * Opens the zip's directory. Once open, the zip owns the file descriptor (yauzl closes it when the zip is closed
 * and its last stream ends); `unopened` releases it when the zip could not be opened.
 */
export async function openZipParts(
  open: () => Promise<ZipFile>,
  file: string,
  unopened: () => void,
): Promise<ZipParts> {
  let zip: ZipFile;
  try {
    zip = await open();
  } catch (error) {
    unopened();
    throw unreadableWorkbook(file, (error as Error).message, error);
  }
  const entries = new Map<string, Entry>();
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES) {
      throw unreadableWorkbook(file, `its zip holds ${zip.entryCount} parts, over the ${MAX_ZIP_ENTRIES} read`);
    }
    for await (const entry of zip.eachEntry()) {
      const key = entry.fileName.toLowerCase();
      // two parts of one name: readers disagree on which counts, so no reading is the workbook's
      if (entries.has(key)) throw unreadableWorkbook(file, `its zip holds two parts named ${entry.fileName}`);
      entries.set(key, entry);
    }
  } catch (error) {
    zip.close();
    throw error instanceof InputError ? error : unreadableWorkbook(file, (error as Error).message, error);
  }

  let closed = false;
  const open_ = new Set<Readable>();
  const entryOf = (name: string) => entries.get(name.toLowerCase());

  async function* chunks(name: string, bound: number): AsyncGenerator<Buffer> {
    const entry = entryOf(name);
    if (!entry) throw unreadableWorkbook(file, `its part ${name} is missing`);
    if (entry.uncompressedSize > bound) throw tooLarge(file, name, entry.uncompressedSize, bound);
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(entry);
    } catch (error) {
      throw unreadableWorkbook(file, `${name}: ${(error as Error).message}`, error);
    }
    open_.add(stream);
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (error) {
      if (closed) return; // close() ended the read
      throw unreadableWorkbook(file, `${name}: ${(error as Error).message}`, error);
    } finally {
      open_.delete(stream);
      stream.destroy();
    }
  }

  return {
    entry: entryOf,
    chunks,
    async bytes(name, bound) {
      const parts: Buffer[] = [];
      for await (const chunk of chunks(name, bound)) parts.push(chunk);
      return Buffer.concat(parts);
    },
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const stream of open_) stream.destroy();
      zip.close();
    },
  };
}

export function fromFd(fd: number): Promise<ZipFile> {
  return yauzl.fromFdPromise(fd, { lazyEntries: true, autoClose: false, strictFileNames: false });
}

export function fromBuffer(buffer: Buffer): Promise<ZipFile> {
  return yauzl.fromBufferPromise(buffer, { lazyEntries: true, strictFileNames: false });
}

export function unreadableWorkbook(file: string, why: string, cause?: unknown): InputError {
  return new InputError(`${file}: not a readable Excel workbook (${why})`, {
    code: 'input-xlsx',
    file,
    hint: 'Open it in Excel and save it again as .xlsx, or as CSV.',
    cause,
  });
}

function tooLarge(file: string, name: string, size: number, bound: number): InputError {
  return new InputError(
    `${file}: its part ${name} unzips to ${sizeText(size)}, over the ${sizeText(bound)} memberctl reads from one part`,
    {
      code: 'input-xlsx',
      file,
      hint: 'No export of members is this large: the file is damaged or hostile (a zip bomb). Export it again, or save the sheet as CSV.',
    },
  );
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * MB ? `${(bytes / 1024 / MB).toFixed(1)} GB` : `${Math.ceil(bytes / MB)} MB`;
}
