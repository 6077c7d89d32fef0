/** What every route handler gets: the store, faults, statistics, limits and the per-request record. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CapacityGate } from './capacity.js';
import type { FaultDecision, FaultEngine, FaultDraw } from './faults.js';
import type { StatsCollector } from './stats.js';
import type { SandboxStore } from './store.js';
import type { TokenPolicy } from './tokens.js';

export interface SandboxContext {
  store: SandboxStore;
  faults: FaultEngine;
  /** Import requests served at once (faults capacity, queueLimit). */
  capacity: CapacityGate;
  stats: StatsCollector;
  tokens: TokenPolicy;
  maxItems: number;
  maxBodyBytes: number;
  /**
   * Tell persistence the store changed: with --data, resolves once the change is in the append log (answer only
   * then), and schedules a snapshot.
   */
  changed(): Promise<void>;
  /** Write the store now (POST /_sandbox/flush), a no-op without --data. */
  flush(): Promise<void>;
  log(line: string): void;
}

/** One request as it goes through the sandbox; the router logs it when the connection closes. */
export interface RequestRecord {
  seq: number;
  receivedAt: number;
  /** "POST /member/v1/members/import": the route template, not the concrete path. */
  endpoint: string;
  items: number;
  fault?: string;
  draw?: FaultDraw;
}

export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: SandboxContext,
  record: RequestRecord,
  params: string[],
) => Promise<void> | void;

export const sleep = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/**
 * Carries out a fault decided for this request (throw, drop the connection, or a status), the same way on every
 * endpoint; `answer(status, message, headers)` writes the status in the endpoint's own error shape.
 * Returns true when the request has been dealt with; false leaves the decision narrowed to 'none'.
 */
export function carryOutFault(
  decision: FaultDecision,
  req: IncomingMessage,
  record: RequestRecord,
  answer: (status: number, reason: string, headers: Record<string, string>) => void,
): decision is Exclude<FaultDecision, { kind: 'none' }> {
  if (decision.kind === 'throw') throw new Error('injected unexpected error (failNext throw)');
  if (decision.kind === 'drop-before-apply') {
    record.fault = 'drop-before-apply';
    req.socket.destroy();
    return true;
  }
  if (decision.kind !== 'status') return false;
  record.fault = decision.reason;
  const headers: Record<string, string> =
    decision.retryAfter !== undefined ? { 'retry-after': String(decision.retryAfter) } : {};
  if (decision.status === 401)
    headers['www-authenticate'] = 'Bearer error="invalid_token", error_description="scripted fault"';
  answer(decision.status, decision.reason, headers);
  return true;
}
