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
  /**
   * Per-member ordering as the server sees it: items whose memberId appeared earlier in the same request, and
   * items whose memberId was in another request still in flight. A client keeping per-member order sends 0 of both.
   */
  ordering: { duplicateInBatch: number; overlapping: number };
  /** The sandbox process's resident memory, for the million-member check. */
  rssBytes: number;
  /** CPU time the sandbox process used (user + system): its cost per row, whatever else loads the machine. */
  cpuMs: number;
  /** The capacity model (faults capacity, queueLimit): import requests being served and waiting now. */
  capacity: CapacitySnapshot;
}

import type { CapacitySnapshot } from './capacity.js';

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
      ordering: { duplicateInBatch: 0, overlapping: 0 },
    };
  }
  /** memberId → number of requests in flight holding it. */
  private membersInFlight = new Map<string, number>();

  /** An import body arrived (parsed, not yet answered); call the returned function once it is answered or dropped. */
  enterBatch(items: unknown[]): () => void {
    const ids: string[] = [];
    const seen = new Set<string>();
    for (const item of items) {
      const id = typeof item === 'object' && item !== null ? (item as { memberId?: unknown }).memberId : undefined;
      if (typeof id !== 'string') continue;
      if (seen.has(id)) {
        this.counters.ordering.duplicateInBatch++;
        continue;
      }
      seen.add(id);
      const count = this.membersInFlight.get(id) ?? 0;
      if (count > 0) this.counters.ordering.overlapping++;
      this.membersInFlight.set(id, count + 1);
      ids.push(id);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) {
        const count = this.membersInFlight.get(id)! - 1;
        if (count === 0) this.membersInFlight.delete(id);
        else this.membersInFlight.set(id, count);
      }
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

  snapshot(
    store: { members: number; erasedMembers: number; subscriptions: number },
    capacity: CapacitySnapshot,
  ): SandboxStats {
    return {
      ...this.counters,
      byEndpoint: structuredClone(this.counters.byEndpoint),
      ordering: { ...this.counters.ordering },
      ...store,
      rssBytes: process.memoryUsage.rss(),
      cpuMs: cpuMs(),
      capacity,
    };
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
