/**
 * How many import requests may be in flight at once. `--concurrency N` fixes it; by default it is found as the
 * run goes, the way TCP Vegas and Netflix's concurrency-limits do it:
 *
 * - By Little's law, throughput = requests in flight / latency. While latency stays near its floor (the fastest
 *   answer seen), more requests in flight means more rows per second, so the limit grows: doubling per window in
 *   `slow-start`, then by √limit per window in `steady` (fast enough to follow a server 100 ms away, slow enough
 *   to sit just above a busy server's capacity).
 * - Latency above floor × tolerance + slack means requests queue at the server: more in flight would add waiting,
 *   not throughput. The limit shrinks by the ratio (at least 10%, at most half), but not below 4 (`latencyMin`)
 *   when even a window's fastest answer is above it, as Linux's TCP Vegas takes it: a queue at the server delays
 *   every request of the window, while the client's own busy moments (parsing the next chunk while an answer waits
 *   to be read) delay only some. It grows only when the window's median answer is within it: a server whose
 *   queue delays half the requests is already busy (growing on the fastest answer alone overshot a server with
 *   capacity 8 to 32 requests in flight and into its 503s). Between the two it holds.
 * - A 429, a 503, a 504 or a timeout means the server is overloaded: the limit is cut by 30% at once.
 *
 * A window is about one round trip: as many answers as the limit allows in flight, all sent under the current
 * limit (answers to requests sent before a change say nothing about the new limit, and an overload answered by
 * several requests at once cuts only once). The limit grows only when the requests actually filled it: a run held
 * back by its own reading (CPU) has nothing to gain from more requests. Pure logic, no clock: the samples carry
 * their own durations, so tests feed them.
 */

/** One attempt of one request, as the transport saw it (a retry is a new attempt). */
export interface AttemptSample {
  /** Milliseconds from sending to the whole answer, or to the failure. */
  ms: number;
  /** HTTP status, when the server answered. */
  status?: number;
  /** Why there is no answer: "timeout", "ECONNRESET", ... */
  reason?: string;
}

/**
 * Called as each attempt of one request leaves (a retry is a new attempt); the function it returns takes how that
 * attempt ended. An attempt belongs to the limit in force when it left, not when its request first did: a retry
 * sent after a backoff meets the server as it is now.
 */
export type AttemptObserver = () => (attempt: AttemptSample) => void;

/** `fixed`: --concurrency N. `slow-start`: doubling until latency rises or the server pushes back. `steady`: after. */
export type LimitPhase = 'fixed' | 'slow-start' | 'steady';

export interface ConcurrencyLimit {
  /** Requests allowed in flight now (whole, ≥ 1). */
  readonly current: number;
  /** The highest limit of the run so far. */
  readonly peak: number;
  readonly phase: LimitPhase;
  /** Give to the transport with each request: it hears every attempt leave and end. */
  readonly attempt: AttemptObserver;
}

export interface AdaptiveSettings {
  initial: number;
  /** The floor under overload answers (429, 503, 504, timeouts). */
  min: number;
  /**
   * The floor under latency alone: the fixed default of old, which servers handled. Below it latency is mostly the
   * machine's own noise (on a loaded machine a process waits tens of ms for a core, server and client alike, at
   * any concurrency); a server that cannot take this many says so with 429 or 503.
   */
  latencyMin: number;
  max: number;
  /** Latency counts as near its floor up to floor × tolerance + slackMs. */
  tolerance: number;
  /** Absolute allowance: on loopback the floor is a fraction of a millisecond and the client's own work is noise. */
  slackMs: number;
  /** Multiplier on a 429, 503, 504 or timeout. */
  overloadBackoff: number;
}

export const ADAPTIVE_DEFAULTS: AdaptiveSettings = {
  initial: 4,
  min: 1,
  latencyMin: 4,
  max: 32,
  tolerance: 1.5,
  slackMs: 10,
  overloadBackoff: 0.7,
};

/** Fewest answers that close a window: one or two samples are too noisy to act on. */
const MIN_WINDOW = 4;
/** Per window, the floor may rise by this factor towards what is seen (the server's base latency can change). */
const FLOOR_DRIFT = 1.01;
const LATENCY_BACKOFF = { most: 0.5, least: 0.9 };

/** Statuses and failures that mean "too much": the server queue is full, or answers stopped coming in time. */
export function isOverload(attempt: AttemptSample): boolean {
  return attempt.status === 429 || attempt.status === 503 || attempt.status === 504 || attempt.reason === 'timeout';
}

/** An answer whose duration measures the server's latency: anything but a 5xx or a failure to answer. */
function isMeasure(attempt: AttemptSample): boolean {
  return attempt.status !== undefined && attempt.status < 500 && attempt.status !== 429;
}

const ignore: AttemptObserver = () => () => undefined;

export function fixedLimit(n: number): ConcurrencyLimit {
  const current = Math.max(1, Math.floor(n));
  return { current, peak: current, phase: 'fixed', attempt: ignore };
}

export class AdaptiveLimit implements ConcurrencyLimit {
  readonly settings: AdaptiveSettings;
  #limit: number;
  #peak: number;
  #phase: LimitPhase = 'slow-start';
  /** Bumped on every change: samples of requests sent before it do not count. */
  #epoch = 0;
  #floorMs = Infinity;
  /**
   * Attempts on the wire. Not the dispatcher's requests in flight: those include requests sleeping before a retry,
   * which fill the limit without loading the server.
   */
  #onWire = 0;
  #window = emptyWindow();

  constructor(settings: Partial<AdaptiveSettings> = {}) {
    this.settings = { ...ADAPTIVE_DEFAULTS, ...settings };
    const { min, max, initial } = this.settings;
    if (!(min >= 1 && max >= min))
      throw new RangeError(`concurrency limits: need 1 ≤ min ≤ max (min ${min}, max ${max})`);
    this.#limit = clamp(initial, min, max);
    this.#peak = this.current;
  }

  get current(): number {
    return Math.floor(this.#limit);
  }

  get peak(): number {
    return this.#peak;
  }

  get phase(): LimitPhase {
    return this.#phase;
  }

  /** The fastest answer seen (with its slow drift), in ms; Infinity before any. */
  get floorMs(): number {
    return this.#floorMs;
  }

  readonly attempt: AttemptObserver = () => {
    const epoch = this.#epoch;
    const filled = ++this.#onWire >= this.current;
    let ended = false;
    return (sample) => {
      if (ended) return;
      ended = true;
      this.#onWire--;
      this.#observe(epoch, filled, sample);
    };
  };

  #observe(epoch: number, filled: boolean, attempt: AttemptSample): void {
    if (isOverload(attempt)) {
      if (epoch === this.#epoch) this.#change(this.#limit * this.settings.overloadBackoff);
      return;
    }
    if (!isMeasure(attempt)) return; // a 500 or a reset connection says nothing about capacity
    this.#floorMs = Math.min(this.#floorMs, attempt.ms);
    // In slow start the limit has only grown: an answer to a request sent under a smaller limit counts toward
    // closing the round trip. Waiting for a whole round trip of the new limit's own answers took two round trips
    // per doubling (4 to 32 in 0.65 s against a server 100 ms away, a third of a 200k run). Whether to grow is still
    // judged on the new limit's own answers when there are enough of them (#closeWindow).
    const fresh = epoch === this.#epoch;
    if (!fresh && this.#phase !== 'slow-start') return;
    const w = this.#window;
    w.ms.push(attempt.ms);
    if (fresh) w.freshMs.push(attempt.ms);
    w.filled ||= filled;
    if (w.ms.length >= Math.max(this.current, MIN_WINDOW)) this.#closeWindow();
  }

  #closeWindow(): void {
    const { ms, freshMs, filled } = this.#window;
    this.#window = emptyWindow();
    ms.sort((a, b) => a - b);
    const minMs = ms[0]!;
    // answers sent under the smaller limit saw a shorter queue: with capacity 8 at 50 ms they kept the median low
    // and doubled the limit from 16 to 32, into the server's 503s
    const judged = freshMs.length >= MIN_WINDOW ? freshMs.sort((a, b) => a - b) : ms;
    const medianMs = judged[(judged.length - 1) >> 1]!;
    this.#floorMs = Math.min(minMs, this.#floorMs * FLOOR_DRIFT);
    const ceilingMs = this.#floorMs * this.settings.tolerance + this.settings.slackMs;
    if (minMs > ceilingMs) {
      const floor = Math.min(this.settings.latencyMin, this.settings.max);
      if (this.#limit > floor)
        this.#change(
          Math.max(floor, this.#limit * clamp(ceilingMs / minMs, LATENCY_BACKOFF.most, LATENCY_BACKOFF.least)),
        );
    } else if (filled && medianMs <= ceilingMs && this.current < this.settings.max) {
      const grown = this.#phase === 'slow-start' ? this.#limit * 2 : this.#limit + Math.sqrt(this.#limit);
      this.#change(grown, true);
    }
  }

  #change(next: number, growing = false): void {
    if (!growing) this.#phase = 'steady';
    this.#limit = clamp(next, this.settings.min, this.settings.max);
    this.#peak = Math.max(this.#peak, this.current);
    this.#epoch++;
    this.#window = emptyWindow();
  }
}

/**
 * A window's answers so far (their durations, at most the limit's worth), those of requests sent under the current
 * limit among them, and whether a request filled the limit.
 */
function emptyWindow(): { ms: number[]; freshMs: number[]; filled: boolean } {
  return { ms: [], freshMs: [], filled: false };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/** --concurrency N fixes the number; without it the limit adapts, up to `maxConcurrency`. */
export function createLimit(options: { concurrency?: number; maxConcurrency?: number }): ConcurrencyLimit {
  if (options.concurrency !== undefined) return fixedLimit(options.concurrency);
  const max = Math.max(1, Math.floor(options.maxConcurrency ?? ADAPTIVE_DEFAULTS.max));
  return new AdaptiveLimit({ max, initial: Math.min(ADAPTIVE_DEFAULTS.initial, max) });
}
