/**
 * `memberctl subscribe` at a real terminal (a pseudo-terminal from util-linux `script`): what a support person sees
 * when they leave values out, press Ctrl-C, or mistype a flag.
 */
import { describe, expect, it } from 'vitest';
import { APNS, usePushSandbox } from './push-sandbox-helper.js';
import { hasScript, runOnTerminal } from './terminal-helper.js';

const PUSH_TOKEN = 'sandbox-push-token-terminal-51e0';
const { sandbox, env, pushRequests } = usePushSandbox(PUSH_TOKEN);

describe.skipIf(!hasScript)('memberctl subscribe on a terminal', () => {
  it('asks for what is missing, with "did you mean" at the platform choice, then subscribes', async () => {
    const run = await runOnTerminal(['subscribe', 'cust-7'], env(), [
      { when: 'device token (token handle): ', send: `${APNS}\n` },
      { when: 'choose 1-4: ', send: 'iso\n' },
      { when: 'choose 1-4: ', send: 'ios\n' },
      { when: 'installation id: ', send: 'iphone-7\n' },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('"iso" is not one of the choices; did you mean Apns (ios)?');
    expect(run.screen).toContain('Subscribed device iphone-7 of customer cust-7');
    expect(sandbox().subscriptions()).toMatchObject([
      { customerId: 'cust-7', platform: 'Apns', installationId: 'iphone-7' },
    ]);
  });

  it('Ctrl-C at a prompt: exit 130 and a word that nothing was sent', async () => {
    const run = await runOnTerminal(['subscribe', 'cust-7', '--platform', 'ios'], env(), [
      { when: 'device token (token handle): ', send: '\u0003' },
    ]);
    expect(run.code).toBe(130);
    expect(run.screen).toMatch(/\ninterrupted at the prompt: nothing was sent\n$/);
    expect(pushRequests()).toHaveLength(0);
  });

  it('a mistyped flag is reported before any question is asked', async () => {
    const run = await runOnTerminal(['subscribe', 'cust-7', '--platform', 'iso'], env(), []);
    expect(run.code).toBe(2);
    expect(run.screen).toContain('--platform "iso" is not a platform; did you mean Apns (ios)?');
    expect(run.screen).not.toContain('device token');
    expect(pushRequests()).toHaveLength(0);
  });
});
