/**
 * The sandbox's append log beside --data FILE, so that it confirms only what it has stored. Every change the
 * store makes (a member as stored, an erasure, a subscription, a reset) becomes one NDJSON line; a route appends
 * its lines before it answers. The snapshot (persistence.ts) is still written in the background; each snapshot
 * starts a new log file and, once it is on disk, removes the older ones, so the log stays as small as the
 * changes since the last snapshot. At start: the snapshot, then every log file in order.
 *
 * Appending is a write(2) to the page cache, not an fsync: what was confirmed survives the sandbox being killed
 * (kill -9, a crash), not the machine losing power (the snapshot is fsynced).
 */
import { createReadStream } from 'node:fs';
import { open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SandboxStore, Subscription } from './store.js';

/** FILE.log.3: one generation of the log. */
function generations(file: string, names: string[]): number[] {
  const prefix = `${basename(file)}.log.`;
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
}

export class StoreLog {
  #pending: string[] = [];
  #chain: Promise<void> = Promise.resolve();
  #handle: FileHandle | undefined;
  #generation: number;

  private constructor(
    private readonly file: string,
    generation: number,
  ) {
    this.#generation = generation;
  }

  /** Replays the log files left beside `file` into `store` (after its snapshot was loaded); returns the log. */
  static async open(file: string, store: SandboxStore): Promise<{ log: StoreLog; replayed: number }> {
    const found = generations(file, await readdir(dirname(file)).catch(() => [] as string[]));
    let replayed = 0;
    for (const generation of found) replayed += await replay(store, `${file}.log.${generation}`);
    return { log: new StoreLog(file, (found.at(-1) ?? 0) + 1), replayed };
  }

  /** A change the store made, as one line (written at the next commit). */
  add(line: string): void {
    this.#pending.push(line);
  }

  /** Appends every line added so far; resolves once written, rejects if the write failed (nothing confirmed). */
  commit(): Promise<void> {
    if (this.#pending.length === 0) return this.#chain;
    const text = this.#pending.join('');
    this.#pending = [];
    return (this.#chain = this.#chain.then(async () => {
      this.#handle ??= await open(`${this.file}.log.${this.#generation}`, 'a', 0o600);
      await this.#handle.write(text);
    }));
  }

  /**
   * A snapshot starts: lines from now on go to a new generation. Returns what to call once the snapshot is on
   * disk: it removes the generations the snapshot covers.
   */
  rotate(): () => Promise<void> {
    const covered = this.#generation;
    this.#chain = this.#chain
      .catch(() => undefined)
      .then(async () => {
        await this.#handle?.close();
        this.#handle = undefined;
        this.#generation = covered + 1;
      });
    return async () => {
      await this.#chain.catch(() => undefined);
      const names = await readdir(dirname(this.file)).catch(() => [] as string[]);
      for (const generation of generations(this.file, names)) {
        if (generation <= covered)
          await rm(join(dirname(this.file), `${basename(this.file)}.log.${generation}`), { force: true });
      }
    };
  }

  async close(): Promise<void> {
    await this.#chain.catch(() => undefined);
    await this.#handle?.close();
    this.#handle = undefined;
  }
}

/** One log file into the store; a last line cut short (the sandbox died inside a write) was never confirmed. */
async function replay(store: SandboxStore, path: string): Promise<number> {
  let applied = 0;
  for await (const text of createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  })) {
    if (text === '') continue;
    let line: { member?: { memberId: string }; erased?: string; subscription?: Subscription; reset?: true };
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      break;
    }
    if (line.member) store.members.set(line.member.memberId, text.slice(10, -1));
    else if (line.erased !== undefined) {
      store.members.delete(line.erased);
      store.erased.add(line.erased);
    } else if (line.subscription) store.restoreSubscription(line.subscription);
    else if (line.reset) {
      store.members.clear();
      store.erased.clear();
      store.subscriptions.clear();
    }
    applied++;
  }
  if (applied > 0) store.version++;
  return applied;
}
