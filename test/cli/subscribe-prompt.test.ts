import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PromptInterrupted, promptMissing } from '../../src/cli/commands/subscribe-prompt.js';

function streams(answers: string[], end = true) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  // Answers arrive as a terminal would deliver them: one line each time a question ("...: ") is asked.
  const queue = [...answers];
  output.on('data', (chunk: Buffer) => {
    if (!chunk.toString().endsWith(': ')) return;
    const next = queue.shift();
    setImmediate(() => (next === undefined ? end && input.end() : input.write(`${next}\n`)));
  });
  return { input, output, written: () => written };
}

describe('promptMissing', () => {
  it('asks only for what is missing; platform as a numbered choice', async () => {
    const s = streams(['tok123', '1', 'inst-1']);
    const filled = await promptMissing({ customerId: 'c1' }, s);
    expect(filled).toEqual({ customerId: 'c1', tokenHandle: 'tok123', platform: 'Apns', installationId: 'inst-1' });
    expect(s.written()).not.toContain('customer id:');
    expect(s.written()).toContain('1) Apns');
    expect(s.written()).toContain('4) Hms');
  });

  it('takes a platform by name in any spelling and asks again after a wrong choice', async () => {
    const s = streams(['9', 'fcm_v1']);
    const filled = await promptMissing({ customerId: 'c1', tokenHandle: 't', installationId: 'i' }, s);
    expect(filled.platform).toBe('FcmV1');
    expect(s.written()).toContain('"9" is not one of the choices');
  });

  it('asks again when an answer breaks a bound', async () => {
    const s = streams(['i'.repeat(51), 'ok-id']);
    const filled = await promptMissing({ customerId: 'c1', tokenHandle: 't', platform: 'Hms' }, s);
    expect(filled.installationId).toBe('ok-id');
    expect(s.written()).toContain('51 characters long');
  });

  it('end of input is a usage error naming what is still missing', async () => {
    const s = streams(['tok']);
    await expect(promptMissing({ customerId: 'c1' }, s)).rejects.toThrow('missing --platform, --installation-id');
  });

  it('a near miss at the platform choice gets "did you mean"', async () => {
    const s = streams(['iso', 'ios']);
    const filled = await promptMissing({ customerId: 'c1', tokenHandle: 't', installationId: 'i' }, s);
    expect(filled.platform).toBe('Apns');
    expect(s.written()).toContain('"iso" is not one of the choices; did you mean Apns (ios)? Type its number or name');
  });

  it('an abort (Ctrl-C) while a question is open ends with PromptInterrupted, not "missing"', async () => {
    const stop = new AbortController();
    const s = streams([], false);
    s.output.on('data', (chunk: Buffer) => chunk.toString().endsWith(': ') && setImmediate(() => stop.abort()));
    await expect(promptMissing({ customerId: 'c1' }, s, stop.signal)).rejects.toBeInstanceOf(PromptInterrupted);
  });
});
