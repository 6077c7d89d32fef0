/**
 * Where an import goes: the configured server (base URL + token, resolved with the settings' precedence), or with
 * --sandbox a local sandbox started in this process on a free loopback port with generated tokens, stopped after
 * the run. The token stays inside the returned object; only `description` is ever printed.
 */
import { resolveConnection } from '../core/connection.js';
import type { ResolvedSettings } from '../core/settings/index.js';
import { UsageError } from '../errors.js';
import { startSandbox } from '../sandbox/index.js';

export interface ImportTarget {
  baseUrl: URL;
  token: string;
  /** For the summary and logs: the base URL, or "a local sandbox (…)". */
  description: string;
  isSandbox: boolean;
  warnings: string[];
  close(): Promise<void>;
}

export interface TargetFlags {
  sandbox?: boolean;
  sandboxData?: string;
  baseUrl?: string;
}

export async function resolveImportTarget(flags: TargetFlags, settings: ResolvedSettings): Promise<ImportTarget> {
  if (!flags.sandbox) {
    if (flags.sandboxData) throw new UsageError('--sandbox-data needs --sandbox', { hint: 'add --sandbox to import into a local sandbox' });
    const connection = await resolveConnection({ area: 'member', settings });
    return {
      baseUrl: connection.baseUrl,
      token: connection.token,
      description: connection.baseUrl.origin + connection.baseUrl.pathname,
      isSandbox: false,
      warnings: connection.warnings,
      close: async () => undefined,
    };
  }
  if (flags.baseUrl) {
    throw new UsageError('--sandbox and --base-url exclude each other', {
      hint: '--sandbox starts a local server for this run; drop it to send to --base-url',
    });
  }
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataFile: flags.sandboxData });
  const baseUrl = new URL(sandbox.url);
  if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
  const kept = flags.sandboxData ? `its members are kept in ${flags.sandboxData}` : 'its members are discarded after the run';
  return {
    baseUrl,
    token: sandbox.memberToken,
    description: `a local sandbox at ${baseUrl.origin} (started for this run, no real server; admin API at ${baseUrl.origin}/_sandbox/ while it runs; ${kept})`,
    isSandbox: true,
    warnings: [],
    close: () => sandbox.close(),
  };
}
