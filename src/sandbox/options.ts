/**
 * What a sandbox can be told at start-up and, for faults, at run time (PUT /_sandbox/faults).
 * Plain TypeScript checks instead of zod: the sandbox imports only src/schemas and node built-ins.
 */

/** One scripted answer, consumed by the next matching API request in arrival order. */
export interface ScriptedFault {
  /** Which API requests it applies to (default 'import'). */
  endpoint?: 'import' | 'push';
  /** Answer with this status (the batch is NOT applied). 429/503 carry Retry-After when `retryAfter` is set. */
  status?: number;
  /** Seconds for the Retry-After header (only with `status`). */
  retryAfter?: number;
  /** Destroy the socket without an answer: 'after-apply' applies the batch first, 'before-apply' does not. */
  drop?: 'after-apply' | 'before-apply';
  /** Throw inside the handler: exercises the unexpected-error path (500 with the error object, no stack). */
  throw?: boolean;
}

export interface SandboxFaults {
  /** Milliseconds every API request waits after its body arrived and before it is answered. */
  latencyMs: number;
  /** Probability (0..1) that an API request gets 503 + error object; the batch is not applied. */
  failRate: number;
  /** API requests accepted per second (fixed one-second window); beyond it 429 with Retry-After. 0 = unlimited. */
  rateLimit: number;
  /** Probability (0..1) that an import is applied and then its connection destroyed with no answer. */
  dropRate: number;
  /** An import batch holding one of these memberIds gets 400 (as a real server refusing a record it dislikes). */
  rejectMemberIds: string[];
  /** Scripted answers for the next requests, consumed front to back. */
  failNext: ScriptedFault[];
  /** Answer `skipped: null` instead of `skipped: []` when nothing was skipped (the seed says nullable). */
  skippedAsNull: boolean;
  /** Import requests served at once (capacity.ts); more wait for a slot. 0 = unlimited. */
  capacity: number;
  /** With a capacity: requests that may wait for a slot; past it 503 with Retry-After. */
  queueLimit: number;
}

export interface SandboxOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free port). */
  port?: number;
  /** Store file (NDJSON, written atomically); loaded at start. Without it the store is in memory only. */
  dataFile?: string;
  /** Most items one import may hold (default 1000); more → 413. */
  maxItems?: number;
  /** Largest request body in bytes (default 4 MiB); more → 413, the excess is never buffered. */
  maxBodyBytes?: number;
  /** Fixed member token (a JWT) instead of a generated one. */
  memberToken?: string;
  /** Fixed push token instead of a generated one. */
  pushToken?: string;
  /** Accept only this sandbox's own tokens (else any well-formed, unexpired JWT / any opaque token). */
  strictTokens?: boolean;
  /** Seed of the fault PRNG: same seed, same sequence of faults by arrival order (default 1). */
  seed?: number;
  /** Fault settings at start (all off by default). */
  faults?: Partial<SandboxFaults>;
  /** Debounce of --data writes in ms (default 1000; grows with the store so persistence stays cheap). */
  persistDelayMs?: number;
  /** Diagnostics (unexpected errors, persistence failures). Never receives tokens. */
  log?: (line: string) => void;
}

export const DEFAULT_MAX_ITEMS = 1000;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Requests waiting for a slot before the sandbox answers 503 (with a capacity). */
export const DEFAULT_QUEUE_LIMIT = 16;

export function defaultFaults(): SandboxFaults {
  return {
    latencyMs: 0,
    failRate: 0,
    rateLimit: 0,
    dropRate: 0,
    rejectMemberIds: [],
    failNext: [],
    skippedAsNull: false,
    capacity: 0,
    queueLimit: DEFAULT_QUEUE_LIMIT,
  };
}

export class SandboxConfigError extends Error {
  override name = 'SandboxConfigError';
}

function rate(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new SandboxConfigError(`${name} must be a number from 0 to 1`);
  }
  return value;
}

function count(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SandboxConfigError(`${name} must be a whole number, 0 or more`);
  }
  return value;
}

function scripted(value: unknown, index: number): ScriptedFault {
  const where = `failNext[${index}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SandboxConfigError(`${where} must be an object`);
  const step = value as Record<string, unknown>;
  for (const key of Object.keys(step)) {
    if (!['endpoint', 'status', 'retryAfter', 'drop', 'throw'].includes(key))
      throw new SandboxConfigError(`${where}.${key} is not a fault field`);
  }
  if (step.endpoint !== undefined && step.endpoint !== 'import' && step.endpoint !== 'push') {
    throw new SandboxConfigError(`${where}.endpoint must be "import" or "push"`);
  }
  const kinds = [step.status !== undefined, step.drop !== undefined, step.throw === true].filter(Boolean).length;
  if (kinds !== 1) throw new SandboxConfigError(`${where} needs exactly one of status, drop, throw`);
  if (
    step.status !== undefined &&
    (!Number.isInteger(step.status) || (step.status as number) < 400 || (step.status as number) > 599)
  ) {
    throw new SandboxConfigError(`${where}.status must be an HTTP error status (400-599)`);
  }
  if (step.drop !== undefined && step.drop !== 'after-apply' && step.drop !== 'before-apply') {
    throw new SandboxConfigError(`${where}.drop must be "after-apply" or "before-apply"`);
  }
  if (step.retryAfter !== undefined) count(step.retryAfter, `${where}.retryAfter`);
  return step as ScriptedFault;
}

/** Checks a partial fault object (from flags or JSON) and merges it over `base`. */
export function mergeFaults(base: SandboxFaults, input: unknown): SandboxFaults {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new SandboxConfigError('faults must be a JSON object');
  const patch = input as Record<string, unknown>;
  const next: SandboxFaults = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    switch (key) {
      case 'latencyMs':
        next.latencyMs = count(value, key);
        break;
      case 'failRate':
        next.failRate = rate(value, key);
        break;
      case 'dropRate':
        next.dropRate = rate(value, key);
        break;
      case 'rateLimit':
        next.rateLimit = count(value, key);
        break;
      case 'capacity':
        next.capacity = count(value, key);
        break;
      case 'queueLimit':
        next.queueLimit = count(value, key);
        break;
      case 'skippedAsNull':
        if (typeof value !== 'boolean') throw new SandboxConfigError('skippedAsNull must be true or false');
        next.skippedAsNull = value;
        break;
      case 'rejectMemberIds':
        if (!Array.isArray(value) || !value.every((id) => typeof id === 'string')) {
          throw new SandboxConfigError('rejectMemberIds must be an array of strings');
        }
        next.rejectMemberIds = [...value];
        break;
      case 'failNext':
        if (!Array.isArray(value)) throw new SandboxConfigError('failNext must be an array');
        next.failNext = value.map(scripted);
        break;
      default:
        throw new SandboxConfigError(`unknown fault "${key}" (known: ${Object.keys(defaultFaults()).join(', ')})`);
    }
  }
  return next;
}
