/**
 * One gate per server, shared by every request of a client: a 429 closes it until the server's Retry-After has
 * passed, and no request (first attempt or retry) is dispatched while it is closed. Hammering a server that asked
 * for a pause is how bulk tools get their clients banned.
 */
import { sleep } from './sleep.js';

export class PauseGate {
  #openAt = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Close the gate until `ms` from now; a later pause extends it, an earlier one never shortens it. */
  pauseFor(ms: number): void {
    this.#openAt = Math.max(this.#openAt, this.#now() + Math.max(0, ms));
  }

  /** Milliseconds until the gate opens (0 when open). */
  remainingMs(): number {
    return Math.max(0, this.#openAt - this.#now());
  }

  /**
   * Resolves true once the gate is open, false when `signal` aborted first. Loops because another request may
   * extend the pause while this one sleeps.
   */
  async wait(signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      const remaining = this.remainingMs();
      if (remaining <= 0) return true;
      if (!(await sleep(remaining, signal))) return false;
    }
  }
}
