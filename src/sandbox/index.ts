/**
 * The sandbox: a local node:http server of the member and push API (seed 000), with an admin API under
 * /_sandbox/ and deterministic fault injection. `memberctl sandbox` runs it; `--sandbox` on import/subscribe
 * and the tests start it in-process with startSandbox().
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { MemberUpsertItem } from '../schemas/index.js';
import type { SandboxContext } from './context.js';
import { CapacityGate } from './capacity.js';
import { FaultEngine } from './faults.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_ITEMS,
  SandboxConfigError,
  type SandboxFaults,
  type SandboxOptions,
} from './options.js';
import { loadStore, removeStaleTemps } from './persistence.js';
import { Persister } from './persister.js';
import { StoreLog } from './store-log.js';
import { createRequestHandler } from './router.js';
import { StatsCollector, type RequestLogEntry, type SandboxStats } from './stats.js';
import { SandboxStore, type Subscription } from './store.js';
import { bearerToken, checkJwt, generateMemberToken, generatePushToken } from './tokens.js';

export type { SandboxFaults, SandboxOptions, ScriptedFault } from './options.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEMS, DEFAULT_QUEUE_LIMIT, SandboxConfigError } from './options.js';
export { StoreFileError } from './persistence.js';
export type { RequestLogEntry, SandboxStats } from './stats.js';
export type { Subscription } from './store.js';
export { ERASED_REASON } from './store.js';

export interface SandboxHandle {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  host: string;
  port: number;
  /** Sandbox-only credentials: a JWT for the member area, an opaque token for the push area. */
  memberToken: string;
  pushToken: string;
  getMember(memberId: string): MemberUpsertItem | undefined;
  memberCount(): number;
  /** Every stored member (parsed); for tests on small stores. */
  members(): MemberUpsertItem[];
  subscriptions(): Subscription[];
  /** Erase a member: it is gone, and later imports of its id are skipped with reason "member erased". */
  erase(memberId: string): void;
  /** Empty the store, the statistics and the request log; restart the fault PRNG (fault settings stay). */
  reset(): void;
  faults(): SandboxFaults;
  /** Change some fault settings (the others stay); throws SandboxConfigError on a bad value. */
  setFaults(patch: Partial<SandboxFaults>): SandboxFaults;
  stats(): SandboxStats;
  requests(limit?: number): RequestLogEntry[];
  /** Write --data now (no-op without it). */
  flush(): Promise<void>;
  /** Stop listening, cut open connections, write --data. */
  close(): Promise<void>;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new SandboxConfigError(`${name} must be a whole number, 1 or more`);
  return value;
}

function tokensFrom(options: SandboxOptions) {
  const memberToken = options.memberToken ?? generateMemberToken();
  const pushToken = options.pushToken ?? generatePushToken();
  const jwt = checkJwt(memberToken, Math.floor(Date.now() / 1000));
  if (!jwt.ok) throw new SandboxConfigError(`the member token given is not usable: ${jwt.reason}`);
  if ('reason' in bearerToken(`Bearer ${pushToken}`))
    throw new SandboxConfigError('the push token given is not a valid bearer token (token68 characters only)');
  return { memberToken, pushToken, strict: options.strictTokens ?? false };
}

/** --data FILE: the members kept from an earlier run, and the append log of changes since its last snapshot. */
async function openDataFile(store: SandboxStore, dataFile: string, log: (line: string) => void): Promise<StoreLog> {
  // Found out now, not at the first write minutes later (or at Ctrl-C, when the data would be lost).
  await access(dirname(dataFile), constants.W_OK).catch(() => {
    throw new SandboxConfigError(`cannot write the store file's folder ${dirname(dataFile)} (missing or read-only)`);
  });
  for (const name of await removeStaleTemps(dataFile))
    log(`removed ${name}, a temp file left by a sandbox that stopped mid-write`);
  await loadStore(store, dataFile);
  const opened = await StoreLog.open(dataFile, store);
  store.onChange = (line) => opened.log.add(line);
  if (opened.replayed > 0) log(`replayed ${opened.replayed} changes from the append log beside ${dataFile}`);
  return opened.log;
}

function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SandboxConfigError('port must be 0 to 65535');
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new SandboxConfigError('seed must be a whole number');
  const tokens = tokensFrom(options);
  const log = options.log ?? (() => {});
  const store = new SandboxStore();
  const changes = options.dataFile ? await openDataFile(store, options.dataFile, log) : undefined;
  const faults = new FaultEngine(seed, options.faults);
  const capacity = new CapacityGate(() => faults.capacity);
  const stats = new StatsCollector();
  const persister = new Persister(store, options.dataFile, options.persistDelayMs ?? 1000, log, changes);
  const changed = () => {
    persister.schedule();
    return changes?.commit() ?? Promise.resolve();
  };
  const ctx: SandboxContext = {
    store,
    faults,
    capacity,
    stats,
    tokens,
    maxItems: positive(options.maxItems, DEFAULT_MAX_ITEMS, 'maxItems'),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes'),
    changed,
    flush: () => persister.flush(),
    log,
  };

  const server = await listen(createServer(createRequestHandler(ctx)), port, host);
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    memberToken: tokens.memberToken,
    pushToken: tokens.pushToken,
    getMember: (memberId) => store.getMember(memberId),
    memberCount: () => store.members.size,
    members: () => [...store.members.values()].map((json) => JSON.parse(json) as MemberUpsertItem),
    subscriptions: () => [...store.subscriptions.values()],
    erase: (memberId) => {
      store.erase(memberId);
      void changed().catch((error: Error) => log(`could not log the erasure: ${error.message}`));
    },
    reset: () => {
      store.clear();
      stats.reset();
      faults.restart();
      capacity.resetCounters();
      void changed().catch((error: Error) => log(`could not log the reset: ${error.message}`));
    },
    faults: () => faults.current,
    setFaults: (patch) => {
      const next = faults.update(patch);
      capacity.admit();
      return next;
    },
    stats: () =>
      stats.snapshot(
        { members: store.members.size, erasedMembers: store.erased.size, subscriptions: store.subscriptions.size },
        capacity.snapshot(),
      ),
    requests: (limit) => stats.recent(limit),
    flush: () => persister.flush(),
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await persister.flush();
        await changes?.close();
      })()),
  };
}
