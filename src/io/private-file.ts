/**
 * A text file only its owner can read (0600: these files hold personal data), written line by line with
 * backpressure. Lines are gathered into ~64 KiB chunks so a million small writes cost a few hundred syscalls.
 */
import { open } from 'node:fs/promises';
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { InputError } from '../errors.js';

const CHUNK_BYTES = 64 * 1024;

export interface LineWriter {
  /** Queues one line (without its newline). Returns a promise only when the caller should wait for the disk. */
  writeLine(line: string): Promise<void> | undefined;
  /** Flushes and closes; the file is complete when this resolves. */
  close(): Promise<void>;
}

export async function openPrivateFile(path: string, purpose: string): Promise<LineWriter> {
  let stream: WriteStream;
  try {
    const handle = await open(path, 'w', 0o600);
    // the mode given to open() applies only when the file is created: tighten an existing file too
    await handle.chmod(0o600);
    stream = handle.createWriteStream({ encoding: 'utf8' });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new InputError(`cannot write ${purpose} file ${path}: ${reason}`, {
      code: 'output-file',
      file: path,
      hint: 'Check that the folder exists and is writable.',
      cause: error,
    });
  }
  let failure: Error | undefined;
  stream.on('error', (error) => (failure ??= error));
  let pending: string[] = [];
  let pendingBytes = 0;

  const flush = (): Promise<void> | undefined => {
    if (failure) throw writeFailed(path, purpose, failure);
    if (pending.length === 0) return undefined;
    const chunk = pending.join('');
    pending = [];
    pendingBytes = 0;
    if (stream.write(chunk)) return undefined;
    return once(stream, 'drain').then(() => undefined);
  };

  return {
    writeLine(line) {
      pending.push(line, '\n');
      pendingBytes += line.length + 1;
      return pendingBytes >= CHUNK_BYTES ? flush() : undefined;
    },
    async close() {
      await flush();
      if (!stream.closed) {
        stream.end();
        await once(stream, 'close');
      }
      if (failure) throw writeFailed(path, purpose, failure);
    },
  };
}

function writeFailed(path: string, purpose: string, error: Error): InputError {
  return new InputError(`writing ${purpose} file ${path} failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`, {
    code: 'output-file',
    file: path,
    hint: 'Check free disk space and permissions.',
    cause: error,
  });
}
