/**
 * Asking for what `subscribe` is missing, on a terminal only (the caller checks stdin and stderr are TTYs and
 * --json is off). Questions go to stderr so stdout stays the result. Each answer is checked at once and asked
 * again when wrong; end of input (Ctrl-D) is a usage error naming what is still missing, and an abort (the
 * command's Ctrl-C) ends the questions with PromptInterrupted.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import {
  DRAFT_FIELDS,
  fieldProblem,
  normalizePlatform,
  suggestPlatform,
  type SubscriptionDraft,
} from '../../core/subscribe/index.js';
import { PLATFORMS, PLATFORM_NAMES } from '../../schemas/index.js';
import { missingError, problemText, suggestionText } from '../render/subscribe-problems.js';

export interface PromptStreams {
  input: Readable;
  output: Writable;
}

/** Ctrl-C while a question was open: nothing was sent. */
export class PromptInterrupted extends Error {
  constructor() {
    super('interrupted at the prompt');
    this.name = 'PromptInterrupted';
  }
}

export async function promptMissing(
  draft: SubscriptionDraft,
  streams: PromptStreams,
  signal?: AbortSignal,
): Promise<SubscriptionDraft> {
  const filled: SubscriptionDraft = { ...draft };
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: false });
  // An ended input leaves question() pending forever: race every question against the close, which an abort causes too.
  const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  const onAbort = () => rl.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  const ask = async (question: string) => (signal?.aborted ? undefined : Promise.race([rl.question(question), closed]));
  try {
    for (const field of DRAFT_FIELDS) {
      if (filled[field.key] !== undefined) continue;
      const value =
        field.key === 'platform'
          ? await askPlatform(ask, streams.output)
          : await askText(ask, streams.output, field.key, field.label);
      if (value === undefined && signal?.aborted) throw new PromptInterrupted();
      if (value === undefined)
        throw missingError(
          DRAFT_FIELDS.filter((f) => filled[f.key] === undefined).map((f) => f.key),
          'input ended',
        );
      filled[field.key] = value;
    }
    return filled;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    rl.close();
  }
}

type Ask = (question: string) => Promise<string | undefined>;

async function askText(
  ask: Ask,
  output: Writable,
  key: keyof SubscriptionDraft,
  label: string,
): Promise<string | undefined> {
  for (;;) {
    const answer = await ask(`${label}: `);
    if (answer === undefined) return undefined;
    const value = answer.trim();
    if (value === '') continue;
    const problem = key === 'tokenHandle' || key === 'installationId' ? fieldProblem(key, value) : undefined;
    if (!problem) return value;
    output.write(`  ${problemText(problem, 'prompt')}; try again\n`);
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
    if (trimmed === '') continue;
    const suggestion = suggestPlatform(trimmed);
    const advice = suggestion
      ? `did you mean ${suggestionText(suggestion)}? Type its number or name`
      : 'type its number or name';
    output.write(`  ${JSON.stringify(trimmed)} is not one of the choices; ${advice}\n`);
  }
}
