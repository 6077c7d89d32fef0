/**
 * The capacity model (faults `capacity` and `queueLimit`): a server that serves `capacity` import requests at once.
 * More wait, first come first served, which adds their waiting to their latency; past `queueLimit` waiting, a
 * request is refused at once with 503 and Retry-After, as an overloaded server or its load balancer would. The
 * `latencyMs` fault is each request's service time, spent while it holds a slot. 0 = no limit (the default). Both
 * settings are read at every arrival and release, so PATCH /_sandbox/faults changes them for the next requests.
 */

export interface CapacitySettings {
  capacity: number;
  queueLimit: number;
}

export interface CapacitySnapshot {
  serving: number;
  waiting: number;
  /** Most requests waiting at once since the start (or the last reset). */
  maxWaiting: number;
  /** Requests refused with 503 because the queue was full. */
  refused: number;
}

/** Seconds a refused request is told to wait. */
export const CAPACITY_RETRY_AFTER_SECONDS = 1;

export class CapacityGate {
  #serving = 0;
  readonly #waiting: (() => void)[] = [];
  #maxWaiting = 0;
  #refused = 0;

  constructor(private readonly settings: () => CapacitySettings) {}

  /**
   * 'full': refuse the request. Else resolves, once a slot is free, to the function that frees it (call it once,
   * when the answer is written or the connection dropped).
   */
  enter(): 'full' | Promise<() => void> {
    const { capacity, queueLimit } = this.settings();
    if (capacity <= 0 || (this.#serving < capacity && this.#waiting.length === 0)) return Promise.resolve(this.#take());
    if (this.#waiting.length >= queueLimit) {
      this.#refused++;
      return 'full';
    }
    return new Promise((resolve) => {
      this.#waiting.push(() => resolve(this.#take()));
      this.#maxWaiting = Math.max(this.#maxWaiting, this.#waiting.length);
    });
  }

  snapshot(): CapacitySnapshot {
    return {
      serving: this.#serving,
      waiting: this.#waiting.length,
      maxWaiting: this.#maxWaiting,
      refused: this.#refused,
    };
  }

  /** POST /_sandbox/reset: the counters start again (requests being served or waiting stay). */
  resetCounters(): void {
    this.#maxWaiting = this.#waiting.length;
    this.#refused = 0;
  }

  #take(): () => void {
    this.#serving++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#serving--;
      this.admit();
    };
  }

  /** Wakes waiting requests while slots are free: after a release, and when the faults changed (a raised capacity). */
  admit(): void {
    const { capacity } = this.settings();
    while (this.#waiting.length > 0 && (capacity <= 0 || this.#serving < capacity)) this.#waiting.shift()!();
  }
}
