/**
 * Where a workbook's zip is read from. A zip is read from its end (the directory) and then by random access, so:
 * - a plain file is read in place, through its own descriptor: no copy of it is made anywhere;
 * - standard input, a pipe or a gzipped workbook has no random access: it is held in memory, up to
 *   MAX_BUFFERED_WORKBOOK_BYTES (a larger one is refused, naming the way out: give the file's path). Never a
 *   temporary file: a copy of member data on disk could outlive the run (kill -9).
 */
import { closeSync, fstatSync, open, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { InputError } from '../../errors.js';
import type { InputBytes } from '../input-bytes.js';
import { fromBuffer, fromFd, openZipParts, type ZipParts } from './zip-parts.js';

export const MAX_BUFFERED_WORKBOOK_BYTES = 256 * 1024 * 1024;

/** `raw` has been read no further than its head (put back); it is closed here once the zip no longer needs it. */
export async function openWorkbookZip(
  raw: InputBytes,
  file: string,
  path: string,
  maxBuffered = MAX_BUFFERED_WORKBOOK_BYTES,
): Promise<ZipParts> {
  const fd = path === '-' ? undefined : await inPlace(path);
  if (fd !== undefined) {
    await raw.close();
    return openZipParts(
      () => fromFd(fd),
      file,
      () => closeSync(fd),
    );
  }
  const buffer = await readWhole(raw, file, maxBuffered);
  await raw.close();
  return openZipParts(
    () => fromBuffer(buffer),
    file,
    () => undefined,
  );
}

/**
 * The file, opened again for random access, when it is a plain file holding the zip itself (not gzipped). A bare
 * descriptor, not a FileHandle: yauzl closes it, and a FileHandle would close its number again when collected.
 */
async function inPlace(path: string): Promise<number | undefined> {
  // stat first: opening a FIFO whose writer is gone would wait for another writer for ever
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const fd = await promisify(open)(path, 'r').catch(() => undefined);
  if (fd === undefined) return undefined;
  try {
    const head = Buffer.alloc(2);
    const read = readSync(fd, head, 0, 2, 0);
    if (fstatSync(fd).isFile() && !(read === 2 && head[0] === 0x1f && head[1] === 0x8b)) return fd;
  } catch {
    // read as a stream below, which names the failure
  }
  closeSync(fd);
  return undefined;
}

async function readWhole(raw: InputBytes, file: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let chunk = await raw.next(); chunk !== undefined; chunk = await raw.next()) {
    size += chunk.length;
    if (size > max) {
      await raw.close();
      throw new InputError(
        `${file}: a workbook read from standard input, a pipe or gzip is held in memory, up to ${sizeText(max)}; this one is larger`,
        {
          code: 'input-xlsx',
          file,
          hint: "Give the .xlsx file's path instead (a file is read in place, whatever its size).",
        },
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${bytes} bytes`;
}
