/** What `memberctl subscribe` does, loaded only when it runs (subscribe.ts declares its flags and help). */
import type { Command } from 'commander';
import { z } from 'zod';
import { formatProblem, type SubscriptionDraft, type SubscriptionProblem } from '../../core/subscribe/index.js';
import { subscribeDevice, type SubscribeReport } from '../../core/subscribe/subscribe-device.js';
import { SETTING_DEFAULTS } from '../../core/settings/index.js';
import { exitCodeFor } from '../exit-codes.js';
import { PLATFORMS, type ProblemDetails } from '../../schemas/index.js';
import { createJsonLog, jsonStderrOutput } from '../log-format.js';
import { createOutput, type Output } from '../output.js';
import { loadCommandSettings } from '../settings-flags.js';
import { askMissing, readGiven, untilCtrlC } from './subscribe-gather.js';
import { invalidSubscriptionError, missingError, type ValueSources } from '../render/subscribe-problems.js';
import { resolveTarget } from '../target.js';
import type { SubscribeFlags } from './subscribe.js';

/** The flags as commander hands them over, checked once (the timeout's own checks are the settings'). */
const subscribeFlagsSchema = z.object({
  tokenHandle: z.string().optional(),
  platform: z.string().optional(),
  installationId: z.string().optional(),
  baseUrl: z.string().optional(),
  tokenFile: z.string().optional(),
  allowInsecureHttp: z.boolean().optional(),
  sandbox: z.boolean().optional(),
  cleanToken: z.boolean().optional(),
  timeout: z.string().optional(),
  json: z.boolean().optional(),
  from: z.string().optional(),
});
const timeoutSchema = z.number().int().positive();

export async function runSubscribe(
  customerId: string | undefined,
  commanderFlags: SubscribeFlags,
  command: Command,
): Promise<number> {
  const flags = subscribeFlagsSchema.parse(commanderFlags);
  // --log-format json: the notes, warnings and errors below become JSON lines on stderr (see log-format.ts).
  const output =
    (command.optsWithGlobals() as { logFormat?: string }).logFormat === 'json'
      ? jsonStderrOutput(createOutput(), createJsonLog({ context: { command: 'subscribe' } }))
      : createOutput();
  const given = await untilCtrlC((signal) => readGiven(customerId, flags, output, signal));
  if (given === 'cancelled') return cancelled(output, `while reading --from ${flags.from ?? '-'}`);
  const settings = loadCommandSettings(command, 'push');
  const target = await resolveTarget('push', flags, settings);
  try {
    for (const warning of target.warnings) output.warn(warning);
    const request = {
      draft: given.draft,
      cleanToken: flags.cleanToken,
      target: {
        baseUrl: target.baseUrl,
        token: target.token,
        timeoutMs: timeoutSchema.parse(settings.values.timeoutMs.value ?? SETTING_DEFAULTS.timeoutMs),
      },
    };
    const ports = {
      ask: (draft: SubscriptionDraft) => untilCtrlC((signal) => askMissing({ ...given, draft }, signal)),
      watchStop: stopOnSignals,
    };
    const report = await subscribeDevice(request, ports, (event) => {
      if (event.type === 'warning') output.warn(event.message);
      else if (event.type === 'cleaned-token')
        output.err(
          event.automatic
            ? `note: the device token was pasted with angle brackets or spaces (the old iOS description format); sending it without them: ${event.token}`
            : `note: sending the cleaned device token ${event.token}`,
        );
      else if (event.type === 'sending' && target.isSandbox) output.err(`note: sending to ${target.description}`);
      else if (event.type === 'retry')
        output.err(
          `retrying in ${(event.info.delayMs / 1000).toFixed(1)} s (${event.info.reason}), retry ${event.info.attempt} of 3`,
        );
    });
    if (report.kind === 'cancelled') return cancelled(output, 'at the prompt');
    if (report.kind === 'invalid') throw invalidError(report.problems, given.sources);
    return render(report, {
      output,
      json: Boolean(flags.json),
      where: target.isSandbox ? ' (local sandbox: nothing was sent to a real server)' : '',
    });
  } finally {
    await target.close();
  }
}

/** Ctrl-C or a TERM while the request is out: stop it (the outcome says so), and only then. */
function stopOnSignals(stop: () => void): () => void {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

/** Exit 2 naming every problem in the words of where each value came from (what is missing, when anything is). */
function invalidError(problems: SubscriptionProblem[], sources: ValueSources): Error {
  const missing = problems.flatMap((problem) => (problem.kind === 'missing' ? [problem.field] : []));
  return missing.length > 0 ? missingError(missing) : invalidSubscriptionError(problems, sources);
}

/** Ctrl-C before anything was sent: say so (after the ^C the terminal echoed), exit 130. */
function cancelled(output: Output, when: string): number {
  output.err(`\ninterrupted ${when}: nothing was sent`);
  return exitCodeFor('cancelled');
}

const HINTS: Partial<Record<SubscribeReport['kind'], string>> = {
  credentials:
    'check MEMBERCTL_PUSH_TOKEN / --token-file (the push token, not the member JWT): it may be expired, for another environment, or lack permission',
  'not-confirmed':
    'the subscription may or may not be stored; running the same command again is safe (it is idempotent by installation id)',
};
const NOT_SENT_HINT =
  'the server was not reached, so nothing was stored; check the base URL and the network, then run the same command again';

/** Past a year no date is worth printing (Retry-After: 99999999999999999999 would be year +275760). */
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** A server that asked to wait longer than memberctl waits: when to run the command again, as import says it. */
function serverWaitHint(retryAfterMs: number): string {
  if (retryAfterMs > YEAR_MS)
    return "no run should wait that long: ask the API's operators why the server answers so, then run the same command again";
  const until = new Date(Date.now() + retryAfterMs).toISOString();
  return `run the same command again after ${until} (it is idempotent by installation id)`;
}

type Sent = Exclude<SubscribeReport, { kind: 'invalid' | 'cancelled' }>;

function render(outcome: Sent, how: { output: Output; json: boolean; where: string }): number {
  const { output, json } = how;
  if (outcome.kind === 'subscribed') {
    const { customerId, installationId, platform, status } = outcome;
    if (json) output.out(JSON.stringify({ customerId, installationId, platform, status }));
    else
      output.out(
        `Subscribed device ${installationId} of customer ${customerId} to push notifications (${platform}, ${PLATFORMS[platform]}): HTTP ${status}${how.where}`,
      );
    return exitCodeFor(outcome.category);
  }
  const problem: ProblemDetails = outcome.problem;
  if (json) output.out(JSON.stringify({ error: problemJson(problem) }));
  output.err(`${output.color.red('error:')} ${formatProblem(problem)}`);
  const hint =
    outcome.kind === 'not-confirmed' && !outcome.reachedServer
      ? NOT_SENT_HINT
      : outcome.kind === 'not-confirmed' && outcome.retryAfterMs !== undefined
        ? serverWaitHint(outcome.retryAfterMs)
        : HINTS[outcome.kind];
  if (hint) output.err(`${output.color.dim('hint:')} ${hint}`);
  return exitCodeFor(outcome.category);
}

/** Always the five RFC 7807 keys, null when the server left one out: scripts get one shape. */
function problemJson(problem: ProblemDetails): Record<keyof ProblemDetails, string | number | null> {
  return {
    type: problem.type ?? null,
    title: problem.title ?? null,
    status: problem.status ?? null,
    detail: problem.detail ?? null,
    instance: problem.instance ?? null,
  };
}
