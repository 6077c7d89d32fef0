/**
 * Debounced saving of the store to --data. Writes start at most every `delayMs` (stretched to 4× the last
 * write's duration, so a store of a million members costs at most ~20% of the time in writing); one write at
 * a time; flush() writes whatever changed and waits for it (close, SIGINT, POST /_sandbox/flush).
 */
import { saveStore } from './persistence.js';
import type { StoreLog } from './store-log.js';
import type { SandboxStore } from './store.js';

export class Persister {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private savedVersion: number;
  private lastDurationMs = 0;

  constructor(
    private readonly store: SandboxStore,
    private readonly file: string | undefined,
    private readonly delayMs: number,
    private readonly log: (line: string) => void,
    /** The append log: a snapshot covers it, so each snapshot starts a new one and drops the older. */
    private readonly changes?: StoreLog,
  ) {
    this.savedVersion = store.version;
  }

  /** The store changed: make sure a write follows soon. */
  schedule(): void {
    if (!this.file || this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.flush().catch((error: Error) =>
          this.log(`could not save the sandbox store to ${this.file}: ${error.message}`),
        );
      },
      Math.max(this.delayMs, this.lastDurationMs * 4),
    );
    this.timer.unref();
  }

  /** Writes the store if it changed since the last write, after any write already running. */
  async flush(): Promise<void> {
    if (!this.file) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    if (this.store.version === this.savedVersion) return;
    const version = this.store.version;
    const started = Date.now();
    const covered = this.changes?.rotate();
    this.writing = saveStore(this.store, this.file)
      .then(() => covered?.())
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
    this.savedVersion = version;
    this.lastDurationMs = Date.now() - started;
    // Changes that arrived while writing need a write of their own.
    if (this.store.version !== this.savedVersion) this.schedule();
  }
}
