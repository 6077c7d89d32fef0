/**
 * An in-memory member API for core tests (elasticsearch-js tests its bulk helper against a mock connection the
 * same way): upserts into a Map and answers like the real endpoint — counts, a 400 for a batch holding a refused
 * member (so the pipeline bisects), and failures on request. No sockets, no timers: fast and exact.
 */
import type { ImportResponse, ImportTransport } from '../../src/core/import/index.js';
import type { MemberUpsertItem } from '../../src/schemas/index.js';

export interface MemoryTransportOptions {
  /** Members the server refuses with a 400 (a batch holding one is refused whole). */
  refuse?: ReadonlySet<string>;
  /** Members the server skips with a reason. */
  skip?: ReadonlySet<string>;
  /** Decides, per request (1-based), to fail it as "not confirmed" after retries. */
  failRequest?: (request: number) => boolean;
}

export class MemoryTransport implements ImportTransport {
  readonly store = new Map<string, MemberUpsertItem>();
  readonly stats = { requests: 0, retries: 0 };
  closed = false;

  constructor(private readonly options: MemoryTransportOptions = {}) {}

  async postImport(body: Uint8Array): Promise<ImportResponse> {
    const request = ++this.stats.requests;
    await Promise.resolve();
    const items = JSON.parse(new TextDecoder().decode(body)) as MemberUpsertItem[];
    if (this.options.failRequest?.(request)) {
      return {
        kind: 'failed',
        status: 503,
        message: 'HTTP 503: busy (gave up after 2 retries)',
        retries: 2,
        cause: { kind: 'http', status: 503, retries: 2, gaveUp: true, reachedServer: true },
      };
    }
    const refused = items.find((item) => this.options.refuse?.has(item.memberId));
    if (refused)
      return {
        kind: 'bad-request',
        status: 400,
        error: { name: 'ValidationError', message: `member ${refused.memberId} refused`, details: null },
      };
    let importedCount = 0;
    let updatedCount = 0;
    const skipped: { memberId: string; reason: string }[] = [];
    for (const item of items) {
      if (this.options.skip?.has(item.memberId)) {
        skipped.push({ memberId: item.memberId, reason: 'skipped by the test server' });
        continue;
      }
      if (this.store.has(item.memberId)) updatedCount++;
      else importedCount++;
      this.store.set(item.memberId, item);
    }
    return {
      kind: 'ok',
      status: 200,
      result: { importedCount, updatedCount, skipped: skipped.length > 0 ? skipped : null },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
