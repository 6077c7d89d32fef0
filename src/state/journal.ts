/**
 * The resume journal on disk: read it back (ignoring a torn last line), create it, append to it durably.
 *
 * Durability: every append is written and fdatasync'ed before its promise resolves, entries are written in the
 * order they were appended, and each sync covers every earlier write, so after a kill -9 or a power cut the
 * journal holds a prefix of the appended entries, and at worst a torn last line (a write cut short), which the
 * reader drops and the writer truncates away before appending again. Why such a prefix is all a resume needs: the
 * journal-ordering rule in src/core/import/ledger.ts. Appends that arrive while a sync is under way are written
 * together and share the next sync (group commit). The file is 0600: its reasons may name members.
 */
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../io/sync-directory.js';
import { isEntry, isHeader, type BatchEntry, type JournalEntry, type JournalHeader } from './journal-format.js';

export class JournalCorruptError extends Error {
  constructor(
    readonly path: string,
    readonly lineNumber: number,
    detail: string,
  ) {
    super(`journal ${path} is damaged at line ${lineNumber}: ${detail}`);
  }
}

export interface JournalContents {
  /** Undefined when not even the header was written completely (nothing was confirmed then). */
  header?: JournalHeader;
  entries: JournalEntry[];
  /** Bytes up to the end of the last complete line: where appending goes on. */
  validBytes: number;
  /** True when a partial last line (a write cut short by a crash) was dropped. */
  tornTail: boolean;
}

/** Reads a journal; undefined when there is no file. */
export async function readJournal(path: string): Promise<JournalContents | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // no journal there (writing it will say why it cannot)
    throw error;
  }
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.subarray(0, end).toString('utf8').split('\n');
  lines.pop(); // the empty string after the last newline
  const contents: JournalContents = { entries: [], validBytes: end, tornTail: end < bytes.length };
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new JournalCorruptError(path, i + 1, 'not a JSON line');
    }
    if (i === 0) {
      if (!isHeader(value)) throw new JournalCorruptError(path, 1, 'not a memberctl journal header');
      contents.header = value;
    } else if (isEntry(value)) {
      contents.entries.push(value);
    } else if (typeof (value as { t?: unknown } | null)?.t !== 'string') {
      throw new JournalCorruptError(path, i + 1, 'not a journal entry');
    } // an entry type this version does not know is skipped: newer versions may add some
  });
  return contents;
}

export class JournalWriter {
  private pending: { line: string; done: () => void; fail: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  private closed = false;
  /** Entries synced by this writer (not counting the header and run lines). */
  entriesWritten = 0;

  private constructor(
    readonly path: string,
    private readonly ready: Promise<FileHandle>,
  ) {
    ready.catch(() => undefined); // reported by the first append or close
  }

  /**
   * Creates a new journal (replacing any file there) at once, so an unwritable place fails before anything is
   * sent. Writing and syncing the header (a new file: its directory is synced too, ~50–100 ms here) goes on
   * while the import starts; appends wait for it. A crash before then leaves an empty file, which readJournal
   * reports as having no header.
   */
  static async create(path: string, header: JournalHeader, runNumber = 1): Promise<JournalWriter> {
    const handle = await open(path, 'w', 0o600);
    const ready = (async () => {
      try {
        await handle.chmod(0o600); // the mode given to open() applies only when the file is created
        await handle.write(`${JSON.stringify(header)}\n${runLine(runNumber)}`);
        await handle.datasync();
        await syncDirectory(dirname(path)); // the new name itself must survive a power cut
        return handle;
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    })();
    return new JournalWriter(path, ready);
  }

  /** Reopens a journal to go on after `validBytes` (dropping a torn last line), marking a new run. */
  static async reopen(path: string, validBytes: number, runNumber: number): Promise<JournalWriter> {
    const handle = await open(path, 'r+');
    await handle.chmod(0o600);
    await handle.truncate(validBytes);
    await handle.write(runLine(runNumber), validBytes);
    await handle.datasync();
    await handle.close();
    return new JournalWriter(path, open(path, 'a', 0o600));
  }

  /** Resolves once the entry is on disk (written and synced). */
  append(entry: BatchEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((done, fail) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, done, fail });
      this.flushing ??= this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    try {
      const handle = await this.ready;
      while (this.pending.length > 0) {
        const group = this.pending;
        this.pending = [];
        try {
          await handle.write(group.map((p) => p.line).join(''));
          await handle.datasync();
        } catch (error) {
          this.failure = error;
          for (const p of [...group, ...this.pending]) p.fail(error);
          this.pending = [];
          return;
        }
        this.entriesWritten += group.length;
        for (const p of group) p.done();
      }
    } catch (error) {
      this.failure = error;
      for (const p of this.pending) p.fail(error);
      this.pending = [];
    } finally {
      this.flushing = undefined;
    }
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    const handle = await this.ready.catch(() => undefined);
    await handle?.close();
  }

  /** Closes and deletes the journal (the import finished: nothing to resume). */
  async remove(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }
}

function runLine(n: number): string {
  return `${JSON.stringify({ t: 'run', n, at: new Date().toISOString() })}\n`;
}
