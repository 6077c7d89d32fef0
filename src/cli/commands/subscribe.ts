/**
 * `memberctl subscribe CUSTOMER_ID`: register a customer's device for push notifications. Flags (or answers on a
 * terminal) in, one checked request out, one line back. The core's `subscribeDevice` asks (through a port), checks,
 * sends and says which category the result is. This file declares the flags and the help; subscribe-run.ts, loaded
 * when the command runs, gathers the values, wires the target, the terminal questions, Ctrl-C and the output modes,
 * and maps the category to the exit code.
 */
import { Command } from 'commander';
import { exitCodesHelp } from '../exit-codes.js';
import type { CommandResult } from '../program.js';
import { keysLookedFor, platformEntries, PLATFORM_SPELLING } from '../render/subscribe-words.js';

/** The flags as commander hands them over (checked once by subscribe-run.ts's schema). */
export interface SubscribeFlags {
  tokenHandle?: string;
  platform?: string;
  installationId?: string;
  baseUrl?: string;
  tokenFile?: string;
  allowInsecureHttp?: boolean;
  sandbox?: boolean;
  cleanToken?: boolean;
  timeout?: string;
  json?: boolean;
  from?: string;
}

export function subscribeCommand(result: CommandResult): Command {
  return (
    new Command('subscribe')
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
      // what it does is loaded when it runs (subscribe-run.ts): --help and the other commands do not pay for it
      .action(async (customerId: string | undefined, flags: SubscribeFlags, self: Command) => {
        const { runSubscribe } = await import('./subscribe-run.js');
        result.exitCode = await runSubscribe(customerId, flags, self);
      })
  );
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
