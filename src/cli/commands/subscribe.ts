/**
 * `memberctl subscribe CUSTOMER_ID`: register a customer's device for push notifications. Flags (or answers on a
 * terminal) in, one checked request out, one line back. The core's `subscribeDevice` asks (through a port), checks,
 * sends and says which category the result is; this file gathers the values, wires the target, the terminal
 * questions, Ctrl-C and the output modes, and maps the category to the exit code.
 */
import { Command } from 'commander';
import { z } from 'zod';
import { formatProblem, type SubscriptionDraft, type SubscriptionProblem } from '../../core/subscribe/index.js';
import { subscribeDevice, type SubscribeReport } from '../../core/subscribe/subscribe-device.js';
import { SETTING_DEFAULTS } from '../../core/settings/index.js';
import { exitCodeFor, exitCodesHelp } from '../exit-codes.js';
import { PLATFORMS, type ProblemDetails } from '../../schemas/index.js';
import { createJsonLog, jsonStderrOutput } from '../log-format.js';
import { createOutput, type Output } from '../output.js';
import type { CommandResult } from '../program.js';
import { loadCommandSettings } from '../settings-flags.js';
import { askMissing, readGiven, untilCtrlC } from './subscribe-gather.js';
import { keysLookedFor } from '../render/subscribe-blob.js';
import {
  invalidSubscriptionError,
  missingError,
  platformEntries,
  PLATFORM_SPELLING,
  type ValueSources,
} from '../render/subscribe-problems.js';
import { resolveTarget } from '../target.js';

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
type SubscribeFlags = z.infer<typeof subscribeFlagsSchema>;
const timeoutSchema = z.number().int().positive();

export function subscribeCommand(result: CommandResult): Command {
  return new Command('subscribe')
    .description(
      "subscribe a customer's device to push notifications (POST /push/v1/customers/{customerId}/subscription)",
    )
    .argument('[customerId]', 'the customer whose device is subscribed (any characters; sent percent-encoded)')
    .option('--token-handle <token>', 'the device token the push hub uses to reach the device (1-255 characters)')
    .option(
      '--platform <platform>',
      'Apns (iOS), FcmV1 (Android), Hms (Huawei) or Fcm (legacy Android, deprecated); the words ios, android, huawei and the like work too (see below)',
    )
    .option('--installation-id <id>', 'unique id of the app installation on the device (1-50 characters)')
    .option(
      '--from <file>',
      'read the device token, platform and installation id from a JSON object in FILE, or - for standard input, as apps and logs print it (flags win)',
    )
    .option(
      '--clean-token',
      'strip spaces, angle brackets and quotes from the device token before sending (as pasted from a log); an APNs token in the old <a1b2c3d4 e5f6…> format is cleaned without it',
    )
    .option('--base-url <url>', 'API base URL (else MEMBERCTL_BASE_URL, else the profile)')
    .option(
      '--token-file <file>',
      'file whose first line is the push token (else MEMBERCTL_PUSH_TOKEN, else the profile)',
    )
    .option(
      '--allow-insecure-http',
      'allow plain http:// to a host other than loopback (the token would cross the network in clear)',
    )
    .option('--sandbox', 'send to a local sandbox started for this run (no real server, no token needed)')
    .option('--timeout <ms>', 'milliseconds to wait for one response (default 30000)')
    .option(
      '--json',
      'print {customerId, installationId, platform, status}, or {error: {type, title, status, detail, instance}}',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl subscribe cust-42 --token-handle a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 \\
      --platform apns --installation-id iphone-test-1 --sandbox
  $ MEMBERCTL_PUSH_TOKEN=... memberctl subscribe cust-42 --token-handle "$DEVICE_TOKEN" --platform FcmV1 \\
      --installation-id pixel-7 --base-url https://api.example.com --json
  $ pbpaste | memberctl subscribe cust-42 --from - --sandbox
      reads {"deviceToken": …, "os": "iOS", "installationId": …} as an app or a log prints it
  $ memberctl subscribe cust-42        on a terminal, asks for the missing values

--from reads these keys (any case, with or without _ or -, at the top or one object down, e.g. {"device": {…}}):
  device token     ${wrap(keysLookedFor('tokenHandle'), 19)}
  platform         ${wrap(keysLookedFor('platform'), 19)}
  installation id  ${wrap(`${keysLookedFor('installationId')} (deviceId only when none of the others is there)`, 19)}
Two different values for one field are an error; a flag given too wins over the blob.

Platforms: ${platformEntries().slice(0, 3).join(', ')},
           ${platformEntries().slice(3).join(', ')}; ${PLATFORM_SPELLING}.
Retries 429, 502, 503, 504 and connection errors up to 3 times (a subscription is idempotent by installation id).
${exitCodesHelp('subscribe')}`,
    )
    .action(async (customerId: string | undefined, flags: SubscribeFlags, self: Command) => {
      result.exitCode = await runSubscribe(customerId, subscribeFlagsSchema.parse(flags), self);
    });
}

/** Words wrapped at 110 columns, continuation lines indented to `indent` (the help's second column). */
function wrap(text: string, indent: number): string {
  const lines = [''];
  for (const word of text.split(' ')) {
    if (lines.at(-1)!.length + word.length + 1 > 110 - indent) lines.push('');
    lines[lines.length - 1] = lines.at(-1) === '' ? word : `${lines.at(-1)} ${word}`;
  }
  return lines.join(`\n${' '.repeat(indent)}`);
}

async function runSubscribe(customerId: string | undefined, flags: SubscribeFlags, command: Command): Promise<number> {
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
  const hint = outcome.kind === 'not-confirmed' && !outcome.reachedServer ? NOT_SENT_HINT : HINTS[outcome.kind];
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
