/** What `memberctl validate FILE` does, loaded only when it runs (validate.ts declares its flags and help). */
import type { Command } from 'commander';
import { z } from 'zod';
import {
  validateFile,
  validateCategory,
  type ValidateEvent,
  type ValidateProgressInfo,
  type ValidateStats,
} from '../../core/validate/validate-file.js';
import { isMemberctlError, UsageError } from '../../errors.js';
import { exitCodeFor } from '../exit-codes.js';
import { createJsonLog, jsonStderrOutput, logRunEnd } from '../log-format.js';
import { inputOptionsFrom } from '../input-options.js';
import { createOutput, renderError, type Output } from '../output.js';
import { ValidateJsonStream } from '../render/validate-json.js';
import { notReplacedLine, type KeptOutput } from '../render/not-replaced.js';
import { renderProfile } from '../render/validate-profile.js';
import { renderValidateSummary } from '../render/validate-table.js';
import { createValidateProgress } from '../render/validate-progress.js';
import type { ValidateFlags } from './validate.js';

/** --show N: invalid records listed on the terminal (all of them go to --rejects / --json). */
const showSchema = z.string().regex(/^\d+$/).transform(Number).default(20);

/** The exit code of one run. */
export async function runValidate(file: string, flags: ValidateFlags, self: Command): Promise<number> {
  // --log-format json: the warnings and the "Not replaced" line become JSON lines on stderr (log-format.ts), and
  // the last line is `finished` with the exit code and the counts, as import's is
  const jsonLog =
    (self.optsWithGlobals() as { logFormat?: string }).logFormat === 'json'
      ? createJsonLog({ context: { command: 'validate' } })
      : undefined;
  const output = jsonLog ? jsonStderrOutput(createOutput(), jsonLog) : createOutput();
  const show = showSchema.safeParse(flags.show);
  if (!show.success)
    throw new UsageError(`--show must be a whole number, got "${flags.show}"`, {
      hint: 'For example --show 50, or --show 0 for the summary only.',
    });
  const json = flags.json ? new ValidateJsonStream() : undefined;
  const progress = !json && output.stderrIsTTY ? createValidateProgress() : undefined;
  let soFar: ValidateProgressInfo | undefined;
  let began = false; // the outputs were opened: a failure from here on leaves them as they were
  const onEvent = (event: ValidateEvent): Promise<void> | void => {
    progress?.onEvent(event);
    switch (event.type) {
      case 'warning':
        // the only warning during the run comes at its end: the bar goes first, so it is not drawn through
        progress?.stop();
        return output.warn(event.message);
      case 'started':
        began = true;
        return json?.start(event.file, event.format);
      case 'invalid':
        return json?.invalid(event.invalid);
      case 'progress':
        soFar = event.progress;
    }
  };
  const options = {
    ...inputOptionsFrom(file, flags),
    outputPath: flags.output,
    rejectsPath: flags.rejects,
    force: flags.force,
    sampleSize: show.data,
    profile: flags.stats,
  };
  let stats;
  const signals = stopOnSignals(file, output, () => began);
  try {
    stats = await validateFile({ ...options, signal: signals.stop }, onEvent);
  } catch (error) {
    progress?.stop();
    // the error itself comes last, from the entry point (or below with --json), as import's summary comes first
    if (!json && began) sayNotReplaced(flags, output);
    // before the JSON object began, the entry point reports the error; after, close the object ourselves
    if (!json?.hasStarted) throw error;
    json.fail(error, soFar, { output: flags.output, rejects: flags.rejects });
    renderError(error, output);
    const category = isMemberctlError(error) ? error.category : 'internal';
    if (jsonLog) logRunEnd(jsonLog, category, soFar ? { rows: soFar.rows, valid: soFar.valid } : {});
    return exitCodeFor(category);
  } finally {
    signals.release();
  }
  progress?.stop();
  if (json) json.finish(stats);
  else {
    renderValidateSummary(stats, output, stats.format === 'csv' || stats.format === 'xlsx' ? 'csv' : 'ndjson');
    if (stats.profile) renderProfile(stats.profile, output);
  }
  if (jsonLog) logRunEnd(jsonLog, validateCategory(stats), finishedCounts(stats));
  return exitCodeFor(validateCategory(stats));
}

/** validate's `finished` line: the counts of --json that are counts (no records, no memberIds), and where it wrote. */
function finishedCounts(stats: ValidateStats): Record<string, unknown> {
  const { rows, valid, invalid, reasons, duplicateMembers, output, rejects, paddedRows, durationMs } = stats;
  return {
    rows,
    valid,
    invalid,
    reasons,
    duplicateMembers: duplicateMembers.count,
    ...(output && { output }),
    ...(rejects && { rejects }),
    ...(paddedRows !== undefined && { paddedRows }),
    durationMs: Math.round(durationMs),
  };
}

/**
 * Ctrl-C or SIGTERM once reading began: the run stops between batches and removes its half-written --output and
 * --rejects temp files (validateFile's signal). Before that (an input still opening: a FIFO with no writer yet) or
 * a second time (a pipe that sends nothing more), the signal does what it does by default, at once.
 */
function stopOnSignals(file: string, output: Output, began: () => boolean): { stop: AbortSignal; release(): void } {
  const stop = new AbortController();
  const release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (began() && !stop.signal.aborted) return stop.abort();
    release();
    if (!began()) output.err(`interrupted while opening ${file}: nothing was read or written`);
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { stop: stop.signal, release };
}

/** The --output and --rejects asked for, left as they were by a run that ended midway: one line on stderr. */
function sayNotReplaced(flags: ValidateFlags, output: Output): void {
  const kept: KeptOutput[] = [
    ...(flags.output ? [{ path: flags.output, holds: 'valid items' }] : []),
    ...(flags.rejects ? [{ path: flags.rejects, holds: 'rejects' }] : []),
  ];
  if (kept.length > 0) output.err(output.color.yellow(notReplacedLine(kept)));
}
