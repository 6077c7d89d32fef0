/**
 * For the import pipeline's tests: a real sandbox on 127.0.0.1 port 0, the real undici client with short backoff,
 * synthetic candidates, and a transport wrapper that watches every request body for ordering violations.
 */
import type { Candidate } from '../../src/core/candidate.js';
import type { AttemptObserver } from '../../src/core/import/concurrency-limit.js';
import type { ImportEvent, ImportResponse, ImportSummary, ImportTransport } from '../../src/core/import/index.js';
import { MemberApiClient } from '../../src/http/member-api.js';
import { memberRetryPolicy } from '../../src/http/retry-policy.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import type { MemberUpsertItem } from '../../src/schemas/index.js';

export async function sandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ host: '127.0.0.1', port: 0, ...options });
}

export function client(
  box: SandboxHandle,
  options: { retries?: number; connections?: number; token?: string; timeoutMs?: number } = {},
): MemberApiClient {
  const retry = { ...memberRetryPolicy(options.retries ?? 8), minDelayMs: 5, maxDelayMs: 40 };
  return new MemberApiClient({
    baseUrl: new URL(`${box.url}/`),
    token: options.token ?? box.memberToken,
    connections: options.connections ?? 8,
    timeoutMs: options.timeoutMs ?? 5_000,
    retry,
  });
}

export function item(memberId: string, extra: Partial<MemberUpsertItem> = {}): MemberUpsertItem {
  return { memberId, isActive: true, createdAt: '2024-01-02T03:04:05Z', ...extra };
}

/** Row r (1-based) → a candidate; `memberOf` decides the memberId, `invalidEvery` makes every n-th row invalid. */
export async function* candidates(
  rows: number,
  options: {
    memberOf?: (r: number) => string;
    invalidEvery?: number;
    extra?: (r: number) => Partial<MemberUpsertItem>;
  } = {},
): AsyncGenerator<Candidate> {
  for (let r = 1; r <= rows; r++) {
    const memberId = options.memberOf?.(r) ?? `m${r}`;
    if (options.invalidEvery && r % options.invalidEvery === 0) {
      yield {
        record: r,
        line: r + 1,
        memberId,
        raw: { memberId },
        valid: false,
        issues: [{ path: 'email', message: 'must be at most 256 characters', rule: 'too long' }],
      };
      continue;
    }
    yield {
      record: r,
      line: r + 1,
      memberId,
      raw: { memberId, r },
      valid: true,
      item: item(memberId, { firstName: `v${r}`, ...options.extra?.(r) }),
    };
  }
}

/** Sum of the buckets: must equal rows, always. */
export function bucketSum(s: ImportSummary): number {
  return s.invalid + s.unchanged + s.importedCount + s.updatedCount + s.skipped + s.rejected + s.failed;
}

/**
 * Watches what goes out: no body holds two rows of one member, and no member is in two requests at once
 * (a later row is sent only after the earlier row's request settled).
 */
export class OrderingWatch implements ImportTransport {
  readonly violations: string[] = [];
  readonly bodies: string[][] = [];
  private readonly onTheWire = new Map<string, number>();
  maxInFlight = 0;
  private inFlight = 0;

  constructor(private readonly inner: MemberApiClient) {}

  get stats() {
    return this.inner.stats;
  }

  async postImport(
    body: Uint8Array,
    signal?: AbortSignal,
    onAttempt?: AttemptObserver,
    items?: number,
  ): Promise<ImportResponse> {
    const ids = (JSON.parse(new TextDecoder().decode(body)) as MemberUpsertItem[]).map((i) => i.memberId);
    if (new Set(ids).size !== ids.length) this.violations.push(`a body holds two rows of one member: ${ids.join(',')}`);
    for (const id of ids) {
      if (this.onTheWire.has(id)) this.violations.push(`member ${id} sent while an earlier row is in flight`);
      this.onTheWire.set(id, 1);
    }
    this.bodies.push(ids);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      return await this.inner.postImport(body, signal, onAttempt, items);
    } finally {
      this.inFlight--;
      for (const id of ids) this.onTheWire.delete(id);
    }
  }

  destroy() {
    return this.inner.destroy();
  }
}

export function collect(events: ImportEvent[]): (event: ImportEvent) => void {
  return (event) => {
    if (event.type !== 'progress') events.push(event);
  };
}
