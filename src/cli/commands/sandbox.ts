/** `memberctl sandbox`: run the local server of the member and push API until Ctrl-C, printing its sandbox tokens. */
import { Command, InvalidArgumentError } from 'commander';
import { isLoopbackHost } from '../../core/connection.js';
import { InputError, UsageError } from '../../errors.js';
import {
  DEFAULT_QUEUE_LIMIT,
  SandboxConfigError,
  startSandbox,
  StoreFileError,
  type SandboxFaults,
  type SandboxHandle,
} from '../../sandbox/index.js';
import { createOutput, type Output } from '../output.js';
import type { CommandResult } from '../program.js';
import { exitCodeFor } from '../exit-codes.js';

interface SandboxFlags {
  port: number;
  host: string;
  allowRemote?: boolean;
  data?: string;
  maxItems?: number;
  maxBodyBytes?: number;
  latency?: number;
  failRate?: number;
  rateLimit?: number;
  capacity?: number;
  queueLimit?: number;
  dropRate?: number;
  rejectMemberId?: string[];
  seed?: number;
  memberToken?: string;
  pushToken?: string;
  strictTokens?: boolean;
  json?: boolean;
}

export const DEFAULT_SANDBOX_PORT = 7780;

const wholeNumber = (min: number) => (raw: string) => {
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || value < min)
    throw new InvalidArgumentError(`expected a whole number, ${min} or more`);
  return value;
};
const probability = (raw: string) => {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1');
  return value;
};
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

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

export function sandboxCommand(result: CommandResult): Command {
  return new Command('sandbox')
    .description('run a local server of the member and push API (with an admin API and fault injection) until Ctrl-C')
    .option('--port <n>', `port to listen on; 0 for any free port`, wholeNumber(0), DEFAULT_SANDBOX_PORT)
    .option('--host <host>', 'interface to listen on (loopback only unless --allow-remote)', '127.0.0.1')
    .option('--allow-remote', 'allow a non-loopback --host (anyone who can reach it can read and erase the store)')
    .option('--data <file>', 'keep the store in this file (NDJSON, written atomically), loaded at start')
    .option('--max-items <n>', 'most items per import request, more → 413 (default 1000)', wholeNumber(1))
    .option('--max-body-bytes <n>', 'largest request body, more → 413 (default 4194304)', wholeNumber(1))
    .option('--latency <ms>', 'delay every API answer by this many milliseconds', wholeNumber(0))
    .option('--fail-rate <r>', 'share of API requests answered 503, not applied (0 to 1)', probability)
    .option('--rate-limit <n>', 'API requests per second; beyond it 429 with Retry-After', wholeNumber(0))
    .option(
      '--capacity <n>',
      'import requests served at once; more wait (adding latency), see --queue-limit (default 0: no limit)',
      wholeNumber(0),
    )
    .option(
      '--queue-limit <n>',
      `with --capacity: requests that may wait; more → 503 with Retry-After (default ${DEFAULT_QUEUE_LIMIT})`,
      wholeNumber(0),
    )
    .option('--drop-rate <r>', 'share of requests applied and then cut without an answer (0 to 1)', probability)
    .option('--reject-member-id <id>', 'answer 400 to any import batch holding this memberId (repeatable)', collect)
    .option(
      '--seed <n>',
      'seed of the fault generator: same seed, same faults in arrival order (default 1)',
      wholeNumber(0),
    )
    .option('--member-token <jwt>', 'use this member token (a JWT) instead of a generated one')
    .option('--push-token <token>', 'use this push token instead of a generated one')
    .option(
      '--strict-tokens',
      "accept only this sandbox's two tokens (else any well-formed unexpired JWT / opaque token)",
    )
    .option('--json', 'print one JSON line {url, memberToken, pushToken, ...} on stdout once listening (for scripts)')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl sandbox                                   in-memory sandbox on http://127.0.0.1:${DEFAULT_SANDBOX_PORT}
  $ memberctl sandbox --data sandbox.ndjson             keep members across restarts
  $ memberctl sandbox --fail-rate 0.1 --rate-limit 20 --drop-rate 0.02 --seed 7    a flaky server, reproducibly
  $ memberctl sandbox --port 0 --json                   any free port; one JSON line for a script to read
  $ memberctl sandbox --capacity 8 --latency 50         a busy server: 8 served at once, 50 ms each, the rest queue

The tokens printed are sandbox-only. Admin API (no auth, loopback): GET /_sandbox/members, /_sandbox/stats,
/_sandbox/requests, /_sandbox/subscriptions; DELETE /_sandbox/members/{id}; POST /_sandbox/reset;
GET|PUT|PATCH /_sandbox/faults. Calls that change something need Content-Type: application/json; cross-site
requests (a foreign Origin, a Host that is not localhost or an IP) are refused 403.`,
    )
    .action(async (flags: SandboxFlags) => {
      const output = createOutput();
      const sandbox = await start(flags, output);
      const signal = untilSignal();
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
      result.exitCode = exitCodeFor('ok');
    });
}
