/** `memberctl sandbox`: run the local server of the member and push API until Ctrl-C, printing its sandbox tokens. */
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_QUEUE_LIMIT } from '../../sandbox/options.js';
import type { CommandResult } from '../program.js';

export interface SandboxFlags {
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

export function sandboxCommand(result: CommandResult): Command {
  return (
    new Command('sandbox')
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
      // what it does is loaded when it runs (sandbox-run.ts): --help and the other commands do not pay for it
      .action(async (flags: SandboxFlags) => {
        const { runSandbox } = await import('./sandbox-run.js');
        result.exitCode = await runSandbox(flags);
      })
  );
}
