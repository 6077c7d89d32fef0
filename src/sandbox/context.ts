/** What every route handler gets: the store, faults, statistics, limits and the per-request record. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultEngine, FaultDraw } from './faults.js';
import type { StatsCollector } from './stats.js';
import type { SandboxStore } from './store.js';
import type { TokenPolicy } from './tokens.js';

export interface SandboxContext {
  store: SandboxStore;
  faults: FaultEngine;
  stats: StatsCollector;
  tokens: TokenPolicy;
  maxItems: number;
  maxBodyBytes: number;
  /** Tell persistence the store changed (debounced write when --data is set). */
  changed(): void;
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

export const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
