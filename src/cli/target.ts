/**
 * Where a command sends: the configured server (base URL + the area's token, resolved with the settings'
 * precedence), or with --sandbox a local sandbox started in this process on a free loopback port with its own
 * generated tokens, stopped after the command. The token stays inside the returned object; only `description` is
 * ever printed.
 */
import { resolveConnection, type ApiArea } from '../core/connection.js';
import type { ResolvedSettings } from '../core/settings/index.js';
import { UsageError } from '../errors.js';
import { OutputFailure, resourceCause } from '../io/output-failure.js';
import { targetName } from '../state/target-binding.js';
import { cliIo } from './io.js';
import { knowSecret } from './run-secrets.js';

export interface Target {
  baseUrl: URL;
  token: string;
  /** For the summary and logs: the base URL, or "a local sandbox (…)". */
  description: string;
  isSandbox: boolean;
  /** What a journal and a --state file record as their target (state/target-binding.ts). */
  name: string;
  warnings: string[];
  close(): Promise<void>;
}

export interface TargetFlags {
  sandbox?: boolean;
  /** import only: keep the sandbox's members in this file */
  sandboxData?: string;
  baseUrl?: string;
}

/** What the summary says about a sandbox target, per area (an import keeps its members on request). */
const SANDBOX_DESCRIPTION: Record<ApiArea, (origin: string, flags: TargetFlags) => string> = {
  // said in the summary, after the run: no URL, the server is gone by then
  member: (_origin, flags) =>
    `a local sandbox (${flags.sandboxData ? `its members are kept in ${flags.sandboxData}` : 'started for this run; its members are discarded'})`,
  push: (origin) =>
    `a local sandbox at ${origin}, started for this command (no real server; the subscription is discarded when it stops)`,
};

/** subscribe's target: the server resolved, or a sandbox started at once. */
export async function resolveTarget(area: ApiArea, flags: TargetFlags, settings: ResolvedSettings): Promise<Target> {
  checkTargetFlags(flags);
  return flags.sandbox ? startSandboxTarget(area, flags) : serverTarget(area, settings);
}

/** import's target, resolved before the run: see `resolveImportTarget`. */
export interface ImportTargetHandle {
  /** For the summary and logs; the same as the opened target's. */
  description: string;
  isSandbox: boolean;
  /** What a journal, a --state file and the --report record as the target. */
  name: string;
  /** The base URL, token and warnings: a server's as resolved; a --sandbox is started by the first call. */
  open(): Promise<Target>;
  /**
   * Stops the sandbox if it was started (its --sandbox-data file is written then: a full disk there is an
   * OutputFailure); every later call does nothing, so a run may close it before its report and again on the way out.
   */
  close(): Promise<void>;
}

/**
 * import's target, resolved before the run: a server's base URL and token at once (reading them contacts no
 * server), so a wrong configuration is refused before the input is read. A --sandbox is named and described now
 * and started by `open`, which the run calls once its input is open: a wrong file starts no server and leaves a
 * --sandbox-data file untouched.
 */
export async function resolveImportTarget(flags: TargetFlags, settings: ResolvedSettings): Promise<ImportTargetHandle> {
  checkTargetFlags(flags);
  if (!flags.sandbox) {
    const server = await serverTarget('member', settings);
    return { ...server, open: async () => server };
  }
  let started: Promise<Target> | undefined;
  let closed = false;
  return {
    description: SANDBOX_DESCRIPTION.member('', flags),
    isSandbox: true,
    name: targetName({ sandbox: { dataFile: flags.sandboxData } }),
    open: () => (started ??= startSandboxTarget('member', flags)),
    async close() {
      if (closed) return;
      closed = true;
      // a sandbox that failed to start has nothing to stop (its error is the run's)
      const sandbox = await started?.catch(() => undefined);
      await sandbox?.close();
    },
  };
}

/** The flags that exclude each other, refused before anything is read or started. */
function checkTargetFlags(flags: TargetFlags): void {
  if (!flags.sandbox && flags.sandboxData)
    throw new UsageError('--sandbox-data needs --sandbox', { hint: 'add --sandbox to import into a local sandbox' });
  if (flags.sandbox && flags.baseUrl) {
    throw new UsageError('--sandbox and --base-url exclude each other', {
      hint: '--sandbox starts a local server for this command; drop it to send to --base-url',
    });
  }
}

async function serverTarget(area: ApiArea, settings: ResolvedSettings): Promise<Target> {
  const connection = await resolveConnection({ area, settings, env: cliIo().env });
  knowSecret(connection.token); // read from a FIFO, say: not known at the start (run-secrets.ts)
  return {
    baseUrl: connection.baseUrl,
    token: connection.token,
    description: connection.baseUrl.origin + connection.baseUrl.pathname,
    isSandbox: false,
    name: targetName({ baseUrl: connection.baseUrl }),
    warnings: connection.warnings,
    close: async () => undefined,
  };
}

async function startSandboxTarget(area: ApiArea, flags: TargetFlags): Promise<Target> {
  // loaded here: a run against a real server never needs the sandbox's ~20 modules
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataFile: flags.sandboxData });
  const baseUrl = new URL(sandbox.url);
  if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
  for (const token of [sandbox.memberToken, sandbox.pushToken]) knowSecret(token);
  return {
    baseUrl,
    token: area === 'member' ? sandbox.memberToken : sandbox.pushToken,
    description: SANDBOX_DESCRIPTION[area](baseUrl.origin, flags),
    isSandbox: true,
    name: targetName({ sandbox: { dataFile: flags.sandboxData } }),
    warnings: [],
    close: async () => {
      try {
        await sandbox.close();
      } catch (error) {
        // the store file (--sandbox-data) is written as the sandbox closes: a full disk there is the world's doing
        const cause = resourceCause(error);
        if (cause === undefined || !flags.sandboxData) throw error;
        throw new OutputFailure(
          'sandbox data',
          flags.sandboxData,
          cause,
          'Free some space (or raise the limit), then run the same command again (the import is an upsert).',
        );
      }
    },
  };
}
