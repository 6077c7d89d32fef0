/**
 * The raw bytes of an input, as a pull-based chunk iterator: a file (opened up front, so a missing file, a
 * directory or a permission problem is an InputError before anything else happens) or standard input,
 * gunzipped when asked. Counts the bytes taken from the file itself (compressed bytes for .gz) for progress.
 */
import { constants, openSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { Socket } from 'node:net';
import { createGunzip } from 'node:zlib';
import { Readable, pipeline } from 'node:stream';
import { InputError } from '../errors.js';

export interface InputBytes {
  /** Next chunk of (decompressed) bytes, or undefined at the end. Errors come out as InputError. */
  next(): Promise<Buffer | undefined>;
  /** Puts a chunk back in front (used after sniffing the first bytes). */
  unshift(chunk: Buffer): void;
  bytesRead(): number;
  totalBytes?: number;
  close(): Promise<void>;
}

export interface OpenBytesOptions {
  path: string;
  /** Display name for messages. */
  file: string;
  /** true: the name ends in .gz (gzip data is required). Otherwise gzip data is still recognised by its magic bytes. */
  gzip: boolean;
  stdin?: NodeJS.ReadableStream;
}

export async function openInputBytes(options: OpenBytesOptions): Promise<InputBytes> {
  const { file } = options;
  const raw = await openRaw(options);
  // a failure before the InputBytes is handed out must release the file itself (no one else can close it)
  const abandon = (error: unknown): never => {
    raw.destroy();
    throw error;
  };
  const first = await raw.next().catch(abandon);
  const gzip = first !== undefined && first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
  if (options.gzip && !gzip && first !== undefined) {
    abandon(
      new InputError(`${file}: is not gzip data, although its name ends in .gz`, {
        code: 'input-gzip',
        file,
        hint: 'Rename the file without .gz, or compress it with gzip.',
      }),
    );
  }
  const chunks = gzip ? gunzipped(first!, raw, file) : { next: withFirst(first, raw), destroy: () => undefined };
  return handOut(raw, chunks);
}

/** The file's or stdin's own bytes, counted as they are taken (compressed bytes for .gz). */
interface RawInput {
  next(): Promise<Buffer | undefined>;
  bytesRead(): number;
  totalBytes?: number;
  /** Before it is handed out: releases a file (stdin is not ours). */
  destroy(): void;
  /** Stops reading: a file stream is destroyed (which closes the file), stdin paused. */
  close(): Promise<void>;
}

async function openRaw(options: OpenBytesOptions): Promise<RawInput> {
  const stdin = options.path === '-';
  let raw: Readable;
  let totalBytes: number | undefined;
  if (stdin) raw = (options.stdin ?? process.stdin) as Readable;
  else if (await isFifo(options.path)) raw = openFifo(options.path, options.file);
  else {
    const handle = await openFile(options.path, options.file);
    totalBytes = (await handle.stat()).size;
    // the stream closes the handle at its end or when destroyed. 64 KB chunks: a chunk's records are held together
    // until consumed, and larger chunks keep many alive past a young-generation GC (docs/performance.md)
    raw = handle.createReadStream({ highWaterMark: 64 * 1024 });
  }
  // stdin is not ours to destroy when we stop early
  const iterator = (stdin ? raw.iterator({ destroyOnReturn: false }) : raw[Symbol.asyncIterator]()) as AsyncIterator<
    Buffer | string
  >;
  let bytesRead = 0;
  let reading = false;
  return {
    async next() {
      let step: IteratorResult<Buffer | string>;
      reading = true;
      try {
        step = await iterator.next();
      } catch (error) {
        throw readFailure(error, options.file, false);
      } finally {
        reading = false;
      }
      if (step.done) return undefined;
      const chunk = typeof step.value === 'string' ? Buffer.from(step.value) : step.value;
      bytesRead += chunk.length;
      return chunk;
    },
    bytesRead: () => bytesRead,
    totalBytes,
    destroy: () => void (stdin ? undefined : raw.destroy()),
    async close() {
      if (stdin) raw.pause();
      else raw.destroy();
      const returned = iterator.return?.().catch(() => undefined);
      // stdin is never destroyed, so a read still waiting on a pipe left open ends only with the writer's next
      // bytes or close, and the iterator's return waits behind it: a stop must not (a destroyed file ends it at once)
      if (!(stdin && reading)) await returned;
    },
  };
}

interface Chunks {
  next(): Promise<Buffer | undefined>;
  destroy(): void;
}

/** The first chunk (already read to sniff gzip's magic bytes), then the rest. */
function withFirst(first: Buffer | undefined, raw: RawInput): () => Promise<Buffer | undefined> {
  let pendingFirst = first;
  return async () => {
    if (pendingFirst === undefined) return raw.next();
    const chunk = pendingFirst;
    pendingFirst = undefined;
    return chunk;
  };
}

/** Compressed bytes are counted as they leave the file (raw.bytesRead), decompressed ones are handed out. */
function gunzipped(first: Buffer, raw: RawInput, file: string): Chunks {
  async function* compressed(): AsyncGenerator<Buffer> {
    yield first;
    for (let chunk = await raw.next(); chunk !== undefined; chunk = await raw.next()) yield chunk;
  }
  const inflate = createGunzip();
  // pipeline carries a read failure of the file into the gunzip stream; the error reaches us through the iterator
  pipeline(Readable.from(compressed()), inflate, () => undefined);
  const iterator = inflate[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    async next() {
      try {
        const step = await iterator.next();
        return step.done ? undefined : step.value;
      } catch (error) {
        throw readFailure(error, file, true);
      }
    },
    destroy: () => inflate.destroy(),
  };
}

function handOut(raw: RawInput, chunks: Chunks): InputBytes {
  const pending: Buffer[] = [];
  let closed = false;
  // a read waiting on a pipe whose writer pauses (stdin is paused, never destroyed) ends when the input is closed:
  // a Ctrl-C mid-run would otherwise wait for the writer's next bytes, or its close
  let endWait: (() => void) | undefined;
  return {
    async next() {
      if (pending.length > 0) return pending.pop();
      if (closed) return undefined;
      try {
        const closing = new Promise<undefined>((resolve) => (endWait = () => resolve(undefined)));
        return await Promise.race([chunks.next(), closing]);
      } catch (error) {
        // a read cut short by close() is the end, not a failure
        if (closed) return undefined;
        throw error;
      }
    },
    unshift(chunk) {
      pending.push(chunk);
    },
    bytesRead: () => raw.bytesRead(),
    totalBytes: raw.totalBytes,
    async close() {
      if (closed) return;
      closed = true;
      endWait?.();
      pending.length = 0;
      chunks.destroy();
      await raw.close();
    },
  };
}

async function openFile(path: string, file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw openFailure(error, file);
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    throw new InputError(`${file} is a directory, not a file`, {
      code: 'input-unreadable',
      file,
      hint: DIRECTORY_HINT,
    });
  }
  return handle;
}

async function isFifo(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFIFO() === true; // (a path that cannot be stat'ed fails at its open)
}

/**
 * A FIFO (`mkfifo`, or bash's `<(…)` on some systems) is opened without blocking and read as a pipe is: a blocking
 * open(2) waits for a writer in libuv's thread pool, where nothing can cancel it, and even the process's exit waits
 * for it (Ctrl-C could not end the run). Read this way, a read waits for the writer's data and its close is the end.
 */
function openFifo(path: string, file: string): Readable {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // never blocks, writer or not
  } catch (error) {
    throw openFailure(error, file);
  }
  return new Socket({ fd, readable: true, writable: false });
}

// the same reader serves import's input, workbooks and subscribe --from: the hint names no format
const DIRECTORY_HINT = 'Give the path of the file itself, not of the directory it is in.';

function openFailure(error: unknown, file: string): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  const known: Record<string, [string, string]> = {
    ENOENT: ['not found', 'Check the path; relative paths start from the current directory.'],
    EACCES: ['permission denied', "Check the file's permissions (ls -l), or run as a user who may read it."],
    EPERM: ['permission denied', "Check the file's permissions (ls -l), or run as a user who may read it."],
    EISDIR: ['is a directory, not a file', DIRECTORY_HINT],
  };
  const [reason, hint] = known[code ?? ''] ?? [
    `cannot be opened (${(error as Error).message})`,
    'Check the path and the file.',
  ];
  return new InputError(`${file}: ${reason}`, { code: 'input-unreadable', file, hint, cause: error });
}

function readFailure(error: unknown, file: string, gzip: boolean): InputError {
  if (error instanceof InputError) return error;
  const e = error as NodeJS.ErrnoException;
  if (gzip && (e.code?.startsWith('Z_') || /unexpected end of file|incorrect header check/i.test(e.message))) {
    const truncated = /unexpected end of file/i.test(e.message);
    return new InputError(
      `${file}: ${truncated ? 'the gzip data ends early (truncated download?)' : 'is not valid gzip data'}`,
      {
        code: 'input-gzip',
        file,
        hint: truncated
          ? 'Fetch the file again; `gzip -t FILE` checks it.'
          : 'Only a file ending in .gz is gunzipped: rename it if it is not compressed.',
        cause: error,
      },
    );
  }
  if (e.code === 'EISDIR') return openFailure(error, file);
  return new InputError(`${file}: read failed (${e.message})`, {
    code: 'input-unreadable',
    file,
    hint: 'Check the file and the disk.',
    cause: error,
  });
}
