/**
 * `map init --interactive`, on a terminal only: each decision in turn with the cells it is about, then each weak
 * guess (a field chosen by the values alone or by a close spelling). Enter keeps map init's proposal; an answer is
 * checked at once and asked again when wrong. Questions go to stderr. End of input (Ctrl-D) is a usage error and
 * nothing is written; Ctrl-C ends the questions with PromptInterrupted.
 */
import { createInterface } from 'node:readline/promises';
import type { Writable } from 'node:stream';
import type { Decision, MapInitResult } from '../../core/map-init/map-init.js';
import { type Answer, closeDecision, settleDecision } from '../../core/map-init/settle.js';
import { metadataKey } from '../../core/map-init/metadata-key.js';
import { UsageError } from '../../errors.js';
import { type PromptStreams, PromptInterrupted } from './subscribe-prompt.js';

type Ask = (question: string) => Promise<string>;

export async function askDecisions(init: MapInitResult, streams: PromptStreams, signal?: AbortSignal): Promise<void> {
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: false });
  const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  const onAbort = () => rl.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  const ask: Ask = async (question) => {
    const answer = signal?.aborted ? undefined : await Promise.race([rl.question(question), closed]);
    if (answer !== undefined) return answer.trim();
    if (signal?.aborted) throw new PromptInterrupted();
    throw new UsageError('input ended before every decision was settled: nothing was written', {
      code: 'input-ended',
      hint: 'answer each question (Enter keeps the proposal), or run map init without --interactive and edit "decisions" by hand',
    });
  };
  try {
    const headers = init.proposals.map((p) => p.column);
    const keys = [...new Set(init.decisions.map((d) => d.key))];
    for (const [index, key] of keys.entries()) {
      streams.output.write(`\ndecision ${index + 1} of ${keys.length}: ${key}\n`);
      for (const decision of init.decisions.filter((d) => d.key === key))
        await settleOne(init.mapping, decision, headers, ask, streams.output);
      closeDecision(init.mapping, key);
    }
    await reviewWeakGuesses(init, ask, streams.output);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    rl.close();
  }
}

async function settleOne(
  mapping: MapInitResult['mapping'],
  decision: Decision,
  headers: readonly string[],
  ask: Ask,
  output: Writable,
): Promise<void> {
  output.write(`  ${decision.question}\n`);
  if (decision.samples.length > 0)
    output.write(`  cells: ${decision.samples.map((c) => JSON.stringify(c)).join(', ')}\n`);
  if (decision.kind === 'values') {
    for (const word of unsettledWords(mapping, decision)) {
      const answer = await askUntil(
        ask,
        output,
        `  "${word}" means ${decision.field} is true or false? (t/f): `,
        (text) => (/^(t|true|y|yes)$/i.test(text) ? true : /^(f|false|n|no)$/i.test(text) ? false : undefined),
      );
      settleDecision(mapping, decision, { kind: 'values', values: { [word]: answer } }, headers);
    }
    return;
  }
  for (;;) {
    const answer = toAnswer(decision, await ask(promptFor(decision)));
    if (answer === undefined) continue;
    const problem = settleDecision(mapping, decision, answer, headers);
    if (problem === undefined) return;
    output.write(`  ${problem}; try again\n`);
  }
}

function promptFor(decision: Decision): string {
  if (decision.kind === 'timeZone') return '  time zone (Enter keeps UTC): ';
  if (decision.kind === 'dateOrder')
    return `  format: ${decision.options!.map((f, i) => `${i + 1}) ${f}`).join('  ')} (Enter keeps 1): `;
  if (decision.kind === 'column') return '  Enter keeps the proposal, or type the header of another column: ';
  if (decision.kind === 'asWritten') return '  Enter keeps the cells as written (the apostrophe is sent): ';
  if (decision.field === 'isActive') return '  every member active? (Enter keeps true; f for false; or a header): ';
  if (decision.field === 'createdAt') return '  the date-time every member is sent with (e.g. 2024-01-01T00:00:00Z): ';
  return '  the header of the column that identifies a member: ';
}

/** The typed text as an answer; undefined asks again (nothing typed where nothing can be kept). */
function toAnswer(decision: Decision, text: string): Answer | undefined {
  if (decision.kind === 'timeZone') return text === '' ? { kind: 'accept' } : { kind: 'timeZone', zone: text };
  if (decision.kind === 'dateOrder') {
    const chosen = text === '' ? decision.options![0] : (decision.options![Number(text) - 1] ?? text);
    return { kind: 'format', format: chosen! };
  }
  if (decision.kind === 'column') return text === '' ? { kind: 'accept' } : { kind: 'column', column: text };
  if (decision.kind === 'asWritten') return text === '' ? { kind: 'accept' } : undefined;
  if (decision.field === 'isActive') {
    if (text === '' || /^(t|true|y|yes)$/i.test(text)) return { kind: 'accept' };
    return /^(f|false|n|no)$/i.test(text) ? { kind: 'value', value: false } : { kind: 'column', column: text };
  }
  if (text === '') return undefined;
  return decision.field === 'createdAt' ? { kind: 'value', value: text } : { kind: 'column', column: text };
}

/** The status words still null in the rule's values map. */
function unsettledWords(mapping: MapInitResult['mapping'], decision: Decision): string[] {
  const rule = mapping.columns[decision.column ?? ''] as { values?: Record<string, unknown> } | undefined;
  return Object.entries(rule?.values ?? {})
    .filter(([, v]) => v === null)
    .map(([k]) => k);
}

async function askUntil<T>(
  ask: Ask,
  output: Writable,
  question: string,
  read: (text: string) => T | undefined,
): Promise<T> {
  for (;;) {
    const value = read(await ask(question));
    if (value !== undefined) return value;
    output.write('  answer t or f\n');
  }
}

/** Guesses from the values alone or a close spelling: kept with Enter, or sent to metadata with "n". */
async function reviewWeakGuesses(init: MapInitResult, ask: Ask, output: Writable): Promise<void> {
  const decided = new Set(init.decisions.map((d) => d.key));
  const weak = init.proposals.filter(
    (p) =>
      (p.certainty === 'values' || p.certainty === 'fuzzy' || p.weak) &&
      !decided.has(p.column) &&
      init.mapping.columns[p.column] !== undefined,
  );
  for (const p of weak) {
    output.write(`\nweak guess: "${p.column}" → ${p.field} (${p.why.join('; ')})\n`);
    output.write(
      `  cells: ${[...new Set(p.cells)]
        .slice(0, 5)
        .map((c) => JSON.stringify(c))
        .join(', ')}\n`,
    );
    const answer = await ask('  keep it? (Enter keeps it; n keeps the column in metadata instead): ');
    if (/^(n|no)$/i.test(answer)) init.mapping.columns[p.column] = `metadata.${metadataKey(p.column)}`;
  }
}
