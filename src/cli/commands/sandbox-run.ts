/** What `memberctl sandbox` does, loaded only when it runs (sandbox.ts declares its flags and help). */
import { isLoopbackHost } from '../../core/connection.js';
import { InputError, UsageError } from '../../errors.js';
import {
  SandboxConfigError,
  startSandbox,
  StoreFileError,
  type SandboxFaults,
  type SandboxHandle,
} from '../../sandbox/index.js';
import { createOutput, type Output } from '../output.js';
import { exitCodeFor } from '../exit-codes.js';
import { showSecret } from '../run-secrets.js';
import type { SandboxFlags } from './sandbox.js';

/** Serves until Ctrl-C or a TERM; the exit code. */
export async function runSandbox(flags: SandboxFlags): Promise<number> {
  const output = createOutput();
  const sandbox = await start(flags, output);
  const signal = untilSignal();
  // printed to be used: a sandbox's tokens are no secret, even when the environment holds the same (run-secrets.ts)
  for (const token of [sandbox.memberToken, sandbox.pushToken]) showSecret(token);
  if (flags.json) {
    output.out(
      JSON.stringify({
        url: sandbox.url,
        adminUrl: `${sandbox.url}/_sandbox`,
        memberToken: sandbox.memberToken,
        pushToken: sandbox.pushToken,
        dataFile: flags.data ?? null,
        members: sandbox.memberCount(),
        pid: process.pid,
      }),
    );
  } else {
    printBanner(sandbox, flags, output);
  }
  const received = await signal;
  if (!flags.json)
    output.err(`\n${received}: stopping the sandbox${flags.data ? ` and writing ${flags.data}` : ''}...`);
  await sandbox.close();
  if (!flags.json)
    output.err(`stopped${flags.data ? `; ${sandbox.memberCount()} members saved in ${flags.data}` : ''}.`);
  return exitCodeFor('ok');
}

function describeFaults(faults: SandboxFaults): string {
  const parts = [
    faults.latencyMs ? `latency ${faults.latencyMs} ms` : '',
    faults.failRate ? `fail rate ${faults.failRate} (503)` : '',
    faults.rateLimit ? `rate limit ${faults.rateLimit}/s (429)` : '',
    faults.capacity ? `capacity ${faults.capacity} at once, ${faults.queueLimit} waiting (then 503)` : '',
    faults.dropRate ? `drop rate ${faults.dropRate} (reset after apply)` : '',
    faults.rejectMemberIds.length ? `refusing memberIds ${faults.rejectMemberIds.join(', ')} (400)` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'none (change them at run time: PATCH /_sandbox/faults)';
}

function printBanner(sandbox: SandboxHandle, flags: SandboxFlags, output: Output): void {
  const { color } = output;
  const store = flags.data
    ? `${flags.data} (${sandbox.memberCount()} members loaded; written atomically)`
    : 'in memory only (--data FILE keeps it)';
  output.out(`${color.bold('memberctl sandbox')} listening on ${color.cyan(sandbox.url)}  ${color.dim('(a local test server, not the real API)')}

Sandbox-only credentials (accepted by this sandbox only; printing them is the point):
  member token (JWT)    ${sandbox.memberToken}
  push token (opaque)   ${sandbox.pushToken}

Use it from another terminal:
  export MEMBERCTL_BASE_URL=${sandbox.url}
  export MEMBERCTL_TOKEN=${sandbox.memberToken}
  export MEMBERCTL_PUSH_TOKEN=${sandbox.pushToken}
  memberctl import members.csv
  memberctl subscribe CUSTOMER_ID --token-handle HANDLE --platform FcmV1 --installation-id INSTALLATION_ID
  curl -s ${sandbox.url}/_sandbox/stats

Store:  ${store}
Faults: ${describeFaults(sandbox.faults())}${flags.strictTokens ? '\nTokens: strict (only the two above are accepted)' : ''}
Admin:  ${sandbox.url}/_sandbox  (members, subscriptions, stats, requests, faults, reset)
Press Ctrl-C to stop.`);
}

async function start(flags: SandboxFlags, output: Output): Promise<SandboxHandle> {
  if (!isLoopbackHost(flags.host) && !flags.allowRemote) {
    throw new UsageError(
      `refusing to listen on ${flags.host}: the sandbox has no real authentication and an open admin API`,
      {
        hint: 'use --host 127.0.0.1 (the default), or add --allow-remote if this network is trusted',
      },
    );
  }
  try {
    return await startSandbox({
      host: flags.host,
      port: flags.port,
      dataFile: flags.data,
      maxItems: flags.maxItems,
      maxBodyBytes: flags.maxBodyBytes,
      memberToken: flags.memberToken,
      pushToken: flags.pushToken,
      strictTokens: flags.strictTokens,
      seed: flags.seed,
      faults: {
        latencyMs: flags.latency,
        failRate: flags.failRate,
        rateLimit: flags.rateLimit,
        capacity: flags.capacity,
        queueLimit: flags.queueLimit,
        dropRate: flags.dropRate,
        rejectMemberIds: flags.rejectMemberId,
      },
      log: (line) => output.err(`sandbox: ${line}`),
    });
  } catch (error) {
    if (error instanceof SandboxConfigError) throw new UsageError(error.message);
    if (error instanceof StoreFileError) {
      throw new InputError(error.message, {
        file: flags.data,
        hint: 'move the file away to start with an empty store, or point --data elsewhere',
      });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${flags.port} on ${flags.host} is already in use`, {
        hint: 'pick another with --port N, or --port 0 for any free port',
      });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`cannot listen on ${flags.host} (${code})`);
    throw error;
  }
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
