/**
 * Where a subscription goes: the configured server (base URL + push token with the settings' precedence), or with
 * --sandbox a local sandbox started in this process on a free loopback port, using its own push token, stopped
 * after the request. The token stays inside the returned object; only `description` is ever printed.
 */
import { resolveConnection } from '../../core/connection.js';
import type { ResolvedSettings } from '../../core/settings/index.js';
import { UsageError } from '../../errors.js';
import { startSandbox } from '../../sandbox/index.js';

export interface PushTarget {
  baseUrl: URL;
  token: string;
  description: string;
  isSandbox: boolean;
  warnings: string[];
  close(): Promise<void>;
}

export async function resolvePushTarget(flags: { sandbox?: boolean; baseUrl?: string }, settings: ResolvedSettings): Promise<PushTarget> {
  if (!flags.sandbox) {
    const connection = await resolveConnection({ area: 'push', settings });
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
      hint: '--sandbox starts a local server for this command; drop it to send to --base-url',
    });
  }
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
  const baseUrl = new URL(sandbox.url);
  if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
  return {
    baseUrl,
    token: sandbox.pushToken,
    description: `a local sandbox at ${baseUrl.origin}, started for this command (no real server; the subscription is discarded when it stops)`,
    isSandbox: true,
    warnings: [],
    close: () => sandbox.close(),
  };
}
