/**
 * How a run ends early. A graceful stop (first Ctrl-C / SIGTERM) reads no more and sends nothing new, but lets
 * requests in flight settle for a grace period; a hard stop (second Ctrl-C, credentials refused, an internal
 * error) aborts requests in flight at once. Either way the pipeline still accounts for every record read.
 * Only src/cli installs signal handlers; the core sees AbortSignals.
 */
import type { ImportEvent } from './events.js';
import type { Diagnosis } from './fail-fast.js';
import { formatDuration, formatWait } from '../../duration.js';
import type { ServerWait, StopReason } from './types.js';

export interface StopControlOptions {
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
  /** Its reason is an OutputFailure (a full disk...): nothing new is sent, requests in flight may settle. */
  outputFailedSignal?: AbortSignal;
  graceMs: number;
  emit: (event: ImportEvent) => void;
  notify: () => void;
  /** Ends requests on the wire (the transport's destroy). */
  hardStop?: () => void;
  /** Ends the waits of requests not on the wire (a Retry-After pause, a backoff): nothing new is sent anyway. */
  stopWaits?: () => void;
}

export class StopControl {
  reason?: StopReason;
  message?: string;
  /** unreachable: the cause in a few words, for the records not sent. */
  private short?: string;
  fatalError?: unknown;
  /** server-wait: what the server asked for. */
  serverWait?: ServerWait;
  private readonly requests = new AbortController();
  private graceTimer?: NodeJS.Timeout;
  private readonly cleanup: (() => void)[] = [];

  constructor(private readonly o: StopControlOptions) {
    this.listen(o.stopSignal, () => this.interrupt());
    this.listen(o.abortSignal, () => this.abort());
    this.listen(o.outputFailedSignal, () =>
      this.outputFailed((o.outputFailedSignal!.reason as { short?: string }).short ?? 'an output could not be written'),
    );
  }

  get stopping(): boolean {
    return this.reason !== undefined;
  }

  /** Aborts the requests in flight: passed to every request. */
  get requestSignal(): AbortSignal {
    return this.requests.signal;
  }

  reasonText(): string | undefined {
    switch (this.reason) {
      case undefined:
        return undefined;
      case 'interrupted':
        return 'not confirmed: the run was interrupted (Ctrl-C / SIGTERM) before this record was confirmed; safe to re-run';
      case 'aborted':
        return this.fatalError === undefined
          ? 'not confirmed: the run was aborted (second Ctrl-C) before this record was confirmed; safe to re-run'
          : 'not confirmed: the run stopped on an internal error';
      case 'credentials':
        return `not sent: the server refused the credentials${this.message ? ` (${this.message})` : ''}; nothing more was sent`;
      case 'output':
        return `not sent: the run stopped, ${this.message}; safe to send again`;
      case 'unreachable':
        return `not sent: the run stopped early, the first batches all failed the same way (${this.short}); safe to send again`;
      case 'reader':
        return `not sent: the run stopped, ${this.message}; safe to send again`;
      case 'server-wait':
        return `not confirmed: the run stopped, the server asked to wait ${this.short} (Retry-After); nothing more was sent; safe to send again`;
    }
  }

  interrupt(): void {
    if (this.stopping) return;
    this.begin('interrupted');
    this.o.stopWaits?.(); // only requests on the wire have something to settle
    this.graceTimer = setTimeout(() => this.endRequests(), this.o.graceMs);
    this.graceTimer.unref();
    this.o.emit({ type: 'stopping', reason: 'interrupted', graceMs: this.o.graceMs });
  }

  abort(): void {
    if (this.reason === 'aborted') return;
    if (this.reason === 'credentials') return this.endRequests();
    this.begin('aborted');
    this.endRequests();
    this.o.emit({ type: 'stopping', reason: 'aborted' });
  }

  credentialsRefused(status: number, message: string): void {
    if (this.reason === 'credentials') return;
    // the client's message already names the status ("HTTP 401: …")
    this.message = message || `HTTP ${status}`;
    this.begin('credentials');
    // nothing new goes out; requests already on the wire may still be answered and count as confirmed
    this.requests.abort();
    this.o.emit({ type: 'stopping', reason: 'credentials' });
  }

  /** The first batches all failed the same way for a cause retrying cannot fix (fail-fast.ts): nothing more is sent. */
  unreachable(diagnosis: Diagnosis): void {
    if (this.stopping) return;
    this.message = diagnosis.message;
    this.short = diagnosis.short;
    this.begin('unreachable');
    this.requests.abort();
    this.o.emit({ type: 'stopping', reason: 'unreachable' });
  }

  /**
   * The server asked for a pause longer than the run may wait (Retry-After over --max-retry-after): like refused
   * credentials, nothing new goes out (retries and waits end at once), and requests already on the wire may still
   * be answered. Waiting a day inside a cron run, or sending on before the day is over, would both be wrong.
   */
  serverAskedToWait(wait: ServerWait): void {
    if (this.stopping) return;
    this.serverWait = wait;
    this.short = formatWait(wait.retryAfterMs);
    this.message = `the server asked to wait ${this.short} (${wait.status ? `HTTP ${wait.status} with ` : ''}Retry-After), longer than the ${formatDuration(wait.maxRetryAfterMs)} this run may wait (--max-retry-after)`;
    this.begin('server-wait');
    this.requests.abort();
    this.o.emit({ type: 'stopping', reason: 'server-wait' });
  }

  /** An output cannot be written: like a first Ctrl-C (requests in flight may settle), for that reason. */
  outputFailed(message: string): void {
    this.stopWithGrace('output', message);
  }

  /**
   * The input's reader broke for a reason of this machine (the CSV parsing worker died): like a first Ctrl-C,
   * requests in flight may settle, and the records read and not sent are counted, not lost.
   */
  readerFailed(message: string): void {
    this.stopWithGrace('reader', message);
  }

  private stopWithGrace(reason: 'output' | 'reader', message: string): void {
    if (this.stopping) return;
    this.message = message;
    this.begin(reason);
    this.o.stopWaits?.(); // only requests on the wire have something to settle
    this.graceTimer = setTimeout(() => this.endRequests(), this.o.graceMs);
    this.graceTimer.unref();
    this.o.emit({ type: 'stopping', reason, graceMs: this.o.graceMs });
  }

  fatal(error: unknown): void {
    this.fatalError ??= error;
    this.begin('aborted');
    this.endRequests();
  }

  private endRequests(): void {
    this.requests.abort();
    this.o.hardStop?.();
  }

  /** The run is over: timers and listeners go. */
  finish(): void {
    clearTimeout(this.graceTimer);
    for (const remove of this.cleanup.splice(0)) remove();
  }

  private begin(reason: StopReason): void {
    this.reason = reason;
    this.o.notify();
  }

  private listen(signal: AbortSignal | undefined, handler: () => void): void {
    if (!signal) return;
    if (signal.aborted) {
      handler();
      return;
    }
    signal.addEventListener('abort', handler, { once: true });
    this.cleanup.push(() => signal.removeEventListener('abort', handler));
  }
}
