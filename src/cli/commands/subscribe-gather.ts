/**
 * Gathering `subscribe`'s values before anything is sent: the flags, then a --from blob for what the flags left out
 * (flags win), then questions on a terminal for what is still missing. Every value given is checked first, so a
 * wrong one is not discovered after the questions. Ctrl-C while gathering (at a prompt, or while pasting into
 * `--from -`) is 'cancelled': nothing was sent.
 */
import { closeSync, openSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import { draftProblems, missingFields, type SubscriptionDraft } from '../../core/subscribe/index.js';
import { BLOB_LIMIT_BYTES, mergeBlob, parseDeviceBlob } from '../../core/subscribe/device-blob.js';
import { readWholeInput } from '../../io/read-whole-input.js';
import type { Output } from '../output.js';
import { blobError, blobNotes, missingFromBlobError, tooLargeProblem } from '../render/subscribe-blob.js';
import { invalidSubscriptionError, missingError, type ValueSources } from '../render/subscribe-problems.js';
import { PromptInterrupted, promptMissing } from './subscribe-prompt.js';
import { cliIo } from '../io.js';

export interface GatherFlags {
  tokenHandle?: string;
  platform?: string;
  installationId?: string;
  from?: string;
  cleanToken?: boolean;
  json?: boolean;
}

/** What the flags and the blob gave, checked; `ask` says where questions can go for what is missing. */
export interface Given {
  draft: SubscriptionDraft;
  sources: ValueSources;
  ask: 'stdin' | 'tty' | undefined;
}

/** Runs `work` with Ctrl-C turned into an abort it can act on (instead of a silent exit 130), and no longer. */
export async function untilCtrlC<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  try {
    return await work(stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
  }
}

/** The controlling terminal, when stdin is taken by `--from -` but a person is at the keyboard. */
function terminalAvailable(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

function whereToAsk(flags: GatherFlags): Given['ask'] {
  if (flags.json || !cliIo().stderr.isTTY) return undefined;
  if (flags.from === '-') return terminalAvailable() ? 'tty' : undefined;
  return cliIo().stdin.isTTY ? 'stdin' : undefined;
}

export async function readGiven(
  customerId: string | undefined,
  flags: GatherFlags,
  output: Output,
  signal: AbortSignal,
): Promise<Given | 'cancelled'> {
  let draft: SubscriptionDraft = {
    customerId,
    tokenHandle: flags.tokenHandle,
    platform: flags.platform,
    installationId: flags.installationId,
  };
  const sources: ValueSources = {};
  const ask = whereToAsk(flags);
  let blobFacts: { file: string; keysSeen: string[] } | undefined;
  if (flags.from !== undefined) {
    const read = await readBlob(flags.from, output, signal);
    if (read === 'cancelled') return read;
    const blob = parseDeviceBlob(read.text);
    if (blob.kind === 'invalid') throw blobError(read.file, blob.problems);
    const merged = mergeBlob(draft, blob);
    if (merged.problems.length > 0) throw blobError(read.file, merged.problems);
    draft = merged.draft;
    for (const [field, key] of Object.entries(merged.sources)) sources[field as keyof ValueSources] = { blobKey: key };
    for (const note of blobNotes(read.file, blob, merged.sources, merged.overridden)) output.err(`note: ${note}`);
    blobFacts = { file: read.file, keysSeen: blob.keysSeen };
  }
  const missing = missingFields(draft);
  if (!ask && missing.length > 0) {
    const why = flags.json ? '--json never asks' : 'no terminal to ask on';
    throw blobFacts
      ? missingFromBlobError(missing, blobFacts.file, blobFacts.keysSeen, why)
      : missingError(missing, why);
  }
  const problems = draftProblems(draft, { cleanToken: flags.cleanToken }).filter(
    (problem) => problem.kind !== 'missing',
  );
  if (problems.length > 0) throw invalidSubscriptionError(problems, sources);
  return { draft, sources, ask };
}

async function readBlob(
  path: string,
  output: Output,
  signal: AbortSignal,
): Promise<{ text: string; file: string } | 'cancelled'> {
  if (path === '-' && cliIo().stdin.isTTY)
    output.err('note: paste the device JSON, then press Ctrl-D on an empty line (Ctrl-C cancels)');
  const cancelled = new Promise<'cancelled'>((resolve) =>
    signal.addEventListener('abort', () => resolve('cancelled'), { once: true }),
  );
  const file = path === '-' ? 'stdin' : path;
  const reading = readWholeInput(path, BLOB_LIMIT_BYTES, { label: `--from ${file}`, stdin: cliIo().stdin });
  reading.catch(() => undefined); // after a Ctrl-C nobody waits for the read: its failure must not surface as unhandled
  const read = await Promise.race([reading, cancelled]);
  if (read === 'cancelled') return read;
  if (read.kind === 'too-large') throw blobError(file, [tooLargeProblem]);
  return { text: read.text, file };
}

/** Asks for what is still missing, on stdin or the controlling terminal; 'cancelled' on Ctrl-C. */
export async function askMissing(given: Given, signal: AbortSignal): Promise<SubscriptionDraft | 'cancelled'> {
  if (missingFields(given.draft).length === 0 || !given.ask) return given.draft;
  const { stdin, stderr } = cliIo();
  const input = given.ask === 'tty' ? new ReadStream(openSync('/dev/tty', 'r')) : stdin;
  try {
    return await promptMissing(given.draft, { input, output: stderr as NodeJS.WriteStream }, signal);
  } catch (error) {
    if (error instanceof PromptInterrupted) return 'cancelled';
    throw error;
  } finally {
    if (input !== stdin) input.destroy();
  }
}
