/**
 * Fault injection, deterministic: every API request draws exactly two numbers from a seeded PRNG (mulberry32)
 * in arrival order, one for --fail-rate and one for --drop-rate, whether those are set or not. The same seed and
 * the same sequence of requests therefore give the same faults, run after run.
 */
import { defaultFaults, mergeFaults, type SandboxFaults, type ScriptedFault } from './options.js';

export type ApiEndpoint = 'import' | 'push';

/** mulberry32: tiny, fast, good enough to spread faults; a uint32 seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the sandbox decided for one request, drawn when it arrived. */
export interface FaultDraw {
  failRoll: number;
  dropRoll: number;
}

export type FaultDecision =
  | { kind: 'none'; dropAfterApply: boolean }
  | { kind: 'status'; status: number; retryAfter?: number; reason: string }
  | { kind: 'drop-before-apply' }
  | { kind: 'throw' };

export class FaultEngine {
  private settings: SandboxFaults;
  private random: () => number;
  private windowStart = 0;
  private windowCount = 0;

  constructor(
    private readonly seed: number,
    initial: Partial<SandboxFaults> = {},
  ) {
    this.settings = mergeFaults(defaultFaults(), initial);
    this.random = mulberry32(seed);
  }

  get current(): SandboxFaults {
    return {
      ...this.settings,
      rejectMemberIds: [...this.settings.rejectMemberIds],
      failNext: [...this.settings.failNext],
    };
  }

  /** PATCH semantics: only the given fields change. */
  update(patch: unknown): SandboxFaults {
    this.settings = mergeFaults(this.settings, patch);
    return this.current;
  }

  /** PUT semantics: fields not given go back to their defaults. */
  replace(value: unknown): SandboxFaults {
    this.settings = mergeFaults(defaultFaults(), value);
    return this.current;
  }

  /** Restart the PRNG and the rate window (POST /_sandbox/reset): the run after a reset repeats the first. */
  restart(): void {
    this.random = mulberry32(this.seed);
    this.windowStart = 0;
    this.windowCount = 0;
  }

  draw(): FaultDraw {
    return { failRoll: this.random(), dropRoll: this.random() };
  }

  get latencyMs(): number {
    return this.settings.latencyMs;
  }

  /** The capacity model's settings, read at every arrival and release (no copy). */
  get capacity(): { capacity: number; queueLimit: number } {
    return { capacity: this.settings.capacity, queueLimit: this.settings.queueLimit };
  }

  get skippedAsNull(): boolean {
    return this.settings.skippedAsNull;
  }

  rejected(memberId: string): boolean {
    return this.settings.rejectMemberIds.length > 0 && this.settings.rejectMemberIds.includes(memberId);
  }

  /**
   * Decided once the request's body has arrived, in this order: rate limit (429), the scripted next answer,
   * the fail rate (503); the drop rate acts after the request was applied.
   */
  decide(endpoint: ApiEndpoint, draw: FaultDraw, now = Date.now()): FaultDecision {
    const limited = this.rateLimited(now);
    if (limited !== undefined) {
      return {
        kind: 'status',
        status: 429,
        retryAfter: limited,
        reason: `rate limit of ${this.settings.rateLimit} requests per second exceeded`,
      };
    }
    const scripted = this.takeScripted(endpoint);
    if (scripted) {
      if (scripted.throw) return { kind: 'throw' };
      if (scripted.drop === 'before-apply') return { kind: 'drop-before-apply' };
      if (scripted.drop === 'after-apply') return { kind: 'none', dropAfterApply: true };
      return {
        kind: 'status',
        status: scripted.status!,
        retryAfter: scripted.retryAfter,
        reason: 'scripted fault (failNext)',
      };
    }
    if (draw.failRoll < this.settings.failRate) {
      return { kind: 'status', status: 503, reason: `injected failure (fail rate ${this.settings.failRate})` };
    }
    return { kind: 'none', dropAfterApply: draw.dropRoll < this.settings.dropRate };
  }

  private takeScripted(endpoint: ApiEndpoint): ScriptedFault | undefined {
    const index = this.settings.failNext.findIndex((step) => (step.endpoint ?? 'import') === endpoint);
    if (index < 0) return undefined;
    const [step] = this.settings.failNext.splice(index, 1);
    return step;
  }

  /** Fixed one-second window opened by the first request after the last one closed; returns Retry-After seconds. */
  private rateLimited(now: number): number | undefined {
    const limit = this.settings.rateLimit;
    if (limit <= 0) return undefined;
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount++;
    if (this.windowCount <= limit) return undefined;
    return Math.max(1, Math.ceil((this.windowStart + 1000 - now) / 1000));
  }
}
