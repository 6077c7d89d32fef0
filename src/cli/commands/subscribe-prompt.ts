/**
 * Asking for what `subscribe` is missing, on a terminal only (the caller checks stdin and stderr are TTYs and
 * --json is off). Questions go to stderr so stdout stays the result. Each answer is checked at once and asked
 * again when wrong; end of input (Ctrl-D) is a usage error naming what is still missing.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { DRAFT_FIELDS, fieldProblem, missingError, normalizePlatform, type SubscriptionDraft } from '../../core/subscribe.js';
import { PLATFORMS, PLATFORM_NAMES } from '../../schemas/index.js';

export interface PromptStreams {
  input: Readable;
  output: Writable;
}

export async function promptMissing(draft: SubscriptionDraft, streams: PromptStreams): Promise<SubscriptionDraft> {
  const filled: SubscriptionDraft = { ...draft };
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: false });
  // An ended input leaves question() pending forever: race every question against the close.
  const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  const ask = async (question: string) => Promise.race([rl.question(question), closed]);
  try {
    for (const field of DRAFT_FIELDS) {
      if (filled[field.key] !== undefined) continue;
      const value = field.key === 'platform' ? await askPlatform(ask, streams.output) : await askText(ask, streams.output, field.key, field.label);
      if (value === undefined) throw missingError(DRAFT_FIELDS.filter((f) => filled[f.key] === undefined).map((f) => f.key), 'input ended');
      filled[field.key] = value;
    }
    return filled;
  } finally {
    rl.close();
  }
}

type Ask = (question: string) => Promise<string | undefined>;

async function askText(ask: Ask, output: Writable, key: keyof SubscriptionDraft, label: string): Promise<string | undefined> {
  for (;;) {
    const answer = await ask(`${label}: `);
    if (answer === undefined) return undefined;
    const value = answer.trim();
    if (value === '') continue;
    const problem = key === 'tokenHandle' || key === 'installationId' ? fieldProblem(key, value) : undefined;
    if (!problem) return value;
    output.write(`  ${problem.replace(/^--[a-z-]+ /, '')}; try again\n`);
  }
}

async function askPlatform(ask: Ask, output: Writable): Promise<string | undefined> {
  output.write('platform:\n');
  PLATFORM_NAMES.forEach((name, index) => output.write(`  ${index + 1}) ${name.padEnd(6)} ${PLATFORMS[name]}\n`));
  for (;;) {
    const answer = await ask(`choose 1-${PLATFORM_NAMES.length}: `);
    if (answer === undefined) return undefined;
    const trimmed = answer.trim();
    const byNumber = /^\d+$/.test(trimmed) ? PLATFORM_NAMES[Number(trimmed) - 1] : undefined;
    const platform = byNumber ?? normalizePlatform(trimmed);
    if (platform) return platform;
    if (trimmed !== '') output.write(`  "${trimmed}" is not one of the choices; type its number or name\n`);
  }
}
