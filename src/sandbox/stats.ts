/**
 * Request statistics for tests and curious users: counts per endpoint and status, batch sizes, concurrency,
 * and a bounded log of the latest requests (enough to check ordering or that Retry-After was waited out).
 */

export interface RequestLogEntry {
  seq: number;
  /** Milliseconds since the epoch when the request arrived / was answered. */
  receivedAt: number;
  answeredAt: number;
  endpoint: string;
  /** HTTP status, or 0 when the connection was dropped without an answer. */
  status: number;
  /** Items in an import batch (parsed), else 0. */
  items: number;
  /** Which fault, if any, shaped the answer. */
  fault?: string;
}

export interface SandboxStats {
  requests: number;
  /** "POST /member/v1/members/import" → {"200": 10, "503": 2, "dropped": 1} */
  byEndpoint: Record<string, Record<string, number>>;
  inFlight: number;
  maxInFlight: number;
  /** Items in every import body that parsed as a JSON array (valid or not, applied or not). */
  itemsReceived: number;
  importedCount: number;
  updatedCount: number;
  skippedCount: number;
  largestBatch: number;
  bytesReceived: number;
  droppedConnections: number;
  members: number;
  erasedMembers: number;
  subscriptions: number;
  /** The sandbox process's resident memory, for the million-member check. */
  rssBytes: number;
  /** CPU time the sandbox process used (user + system): its cost per row, whatever else loads the machine. */
  cpuMs: number;
}

const LOG_LIMIT = 10_000;

function cpuMs(): number {
  const usage = process.cpuUsage();
  return Math.round((usage.user + usage.system) / 1000);
}

export class StatsCollector {
  private counters = this.fresh();
  private log: RequestLogEntry[] = [];
  private seq = 0;

  private fresh() {
    return {
      requests: 0,
      byEndpoint: {} as Record<string, Record<string, number>>,
      inFlight: 0,
      maxInFlight: 0,
      itemsReceived: 0,
      importedCount: 0,
      updatedCount: 0,
      skippedCount: 0,
      largestBatch: 0,
      bytesReceived: 0,
      droppedConnections: 0,
    };
  }

  /** Called when a request arrives; returns its sequence number (arrival order, from 1). */
  started(): number {
    this.counters.requests++;
    this.counters.inFlight++;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, this.counters.inFlight);
    return ++this.seq;
  }

  finished(entry: RequestLogEntry): void {
    this.counters.inFlight--;
    const key = entry.status === 0 ? 'dropped' : String(entry.status);
    const perEndpoint = (this.counters.byEndpoint[entry.endpoint] ??= {});
    perEndpoint[key] = (perEndpoint[key] ?? 0) + 1;
    if (entry.status === 0) this.counters.droppedConnections++;
    this.log.push(entry);
    if (this.log.length > LOG_LIMIT * 2) this.log = this.log.slice(-LOG_LIMIT);
  }

  batchReceived(items: number, bytes: number): void {
    this.counters.itemsReceived += items;
    this.counters.bytesReceived += bytes;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, items);
  }

  applied(imported: number, updated: number, skipped: number): void {
    this.counters.importedCount += imported;
    this.counters.updatedCount += updated;
    this.counters.skippedCount += skipped;
  }

  snapshot(store: { members: number; erasedMembers: number; subscriptions: number }): SandboxStats {
    return { ...this.counters, byEndpoint: structuredClone(this.counters.byEndpoint), ...store, rssBytes: process.memoryUsage.rss(), cpuMs: cpuMs() };
  }

  recent(limit = 1000): RequestLogEntry[] {
    return this.log.slice(-Math.min(limit, LOG_LIMIT));
  }

  /** Reset keeps the in-flight count: requests still running will report their end. */
  reset(): void {
    const inFlight = this.counters.inFlight;
    this.counters = this.fresh();
    this.counters.inFlight = inFlight;
    this.counters.maxInFlight = inFlight;
    this.log = [];
    this.seq = 0;
  }
}
