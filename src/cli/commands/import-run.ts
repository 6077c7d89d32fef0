/** What `memberctl import FILE` does, loaded only when it runs (import.ts declares its flags and help). */
import type { Command } from 'commander';
import { z } from 'zod';
import { parseDuration } from '../../duration.js';
import { importFile, IMPORT_DEFAULTS } from '../../core/import/index.js';
import { settingValues, type ResolvedSettings } from '../../core/settings/index.js';
import { UsageError } from '../../errors.js';
import { exitCodeFor } from '../exit-codes.js';
import { openOutputFile } from '../../io/output-file.js';
import { checkOutputPaths } from '../../io/output-paths.js';
import { runReport } from '../run-report.js';
import { installStopSignals } from '../import-signals.js';
import { resolveImportTarget, type ImportTargetHandle } from '../target.js';
import { inputOptionsFrom } from '../input-options.js';
import { importStateOptionsFrom } from '../import-state-flags.js';
import { createImportView, type ImportView } from '../render/import-view.js';
import { importOutcome } from '../import-outcome.js';
import { loadCommandSettings } from '../settings-flags.js';
import { cliIo } from '../io.js';
import type { ImportFlags } from './import.js';

export async function runImportCommand(file: string, flags: ImportFlags, command: Command): Promise<number> {
  const settings = loadCommandSettings(command, 'member');
  const { sending, grace } = parseFlags(settings, flags);
  // An output that would destroy the input (or another output) is refused before the input is even opened.
  await checkOutputPaths([file], importOutputs(flags), { force: flags.force });
  if (flags.report) await checkWritable(flags.report, flags.force);
  const reportFile = runReport(flags.report, file, flags.force);
  const view = createImportView(command, flags, { file, profile: settings.profile?.value });
  const signals = installStopSignals((count) => view.stopping(count, grace));
  let target: ImportTargetHandle | undefined;
  try {
    // the server before the input (reading the token contacts nothing); a --sandbox starts once the input is open
    target = await resolveImportTarget(flags, settings);
    reportFile.target = target.name;
    const request = {
      input: inputOptionsFrom(file, flags),
      sending: { ...sending, graceMs: grace },
      rejectsPath: flags.rejects,
      forceOutputs: flags.force,
      state: importStateOptionsFrom(file, flags),
      stopSignal: signals.stop,
      abortSignal: signals.abort,
    };
    const report = await importFile(request, targetPort(target, view), (event) => view.onEvent(event));
    view.finish();
    const outcome = await importOutcome(report, { reportFile, target, argv: cliIo().argv.slice(2), flags });
    view.render(report, outcome);
    return exitCodeFor(outcome.category);
  } catch (error) {
    await reportFile.failed(error); // a failed night replaces last night's report
    throw error;
  } finally {
    signals.dispose();
    view.finish();
    await target?.close(); // a run that threw stops its sandbox here; after importOutcome closed it, nothing happens
  }
}

/** Core opens the target once the input is open; the view learns it then (and masks its token from there on). */
function targetPort(target: ImportTargetHandle, view: ImportView) {
  return {
    openTarget: async () => {
      const opened = await target.open();
      view.knowTarget(opened);
      return opened;
    },
  };
}

/** The sending settings (flag > env > profile > default, already checked by resolution) as the numbers core needs. */
const sendingSchema = z.object({
  batchSize: z.number().int().positive(),
  maxBatchBytes: z.number().int().positive(),
  /** Fixed by --concurrency, MEMBERCTL_CONCURRENCY or a profile; else it adapts up to maxConcurrency. */
  concurrency: z.number().int().positive().optional(),
  retries: z.number().int().nonnegative(),
  timeoutMs: z.number().int().positive(),
  /** Checked by the setting's schema already: a duration of at most 7 days. */
  maxRetryAfter: z.string().transform((text) => parseDuration(text)!),
});

function parseFlags(settings: ResolvedSettings, flags: ImportFlags) {
  const grace = flags.grace === undefined ? IMPORT_DEFAULTS.graceMs : wholeNumber('--grace', flags.grace);
  const { maxRetryAfter, ...sending } = sendingSchema.parse(settingValues(settings));
  const concurrency = concurrencyFrom(flags, sending.concurrency, settings.values.concurrency.source.kind);
  return { sending: { ...sending, ...concurrency, maxRetryAfterMs: maxRetryAfter }, grace };
}

/**
 * --concurrency N (or a profile's or MEMBERCTL_CONCURRENCY's) fixes the number; else it adapts up to
 * --max-concurrency. Typed together they contradict each other; a typed --max-concurrency beats a profile's fixed one.
 */
function concurrencyFrom(
  flags: ImportFlags,
  fixed: number | undefined,
  from: string,
): { concurrency?: number; maxConcurrency: number } {
  if (flags.maxConcurrency === undefined) return { concurrency: fixed, maxConcurrency: IMPORT_DEFAULTS.maxConcurrency };
  if (from === 'flag') {
    throw new UsageError('--concurrency and --max-concurrency cannot be used together', {
      hint: '--concurrency N fixes the number of requests in flight; --max-concurrency N lets it adapt up to N.',
    });
  }
  const max = wholeNumber('--max-concurrency', flags.maxConcurrency);
  if (max < 1 || max > 256)
    throw new UsageError(`--max-concurrency must be from 1 to 256, got ${max}`, {
      hint: 'For example --max-concurrency 64.',
    });
  return { concurrency: undefined, maxConcurrency: max };
}

function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new UsageError(`${flag} must be a whole number, got "${value}"`, { hint: `For example ${flag} 10000.` });
  return Number(value);
}

/** Fails before the run, not after an hour of importing, when the report cannot be written (last night's stays). */
async function checkWritable(path: string, force: boolean | undefined): Promise<void> {
  const file = await openOutputFile(path, 'report', { force });
  await file.abort();
}

function importOutputs(flags: ImportFlags) {
  const named = (flag: string, path: string | false | undefined, ownOnly = false) =>
    typeof path === 'string' ? { flag, path, ownOnly } : undefined;
  return [
    // rewritten by every run: replaced only when memberctl wrote them, unchanged since (else --force)
    named('--rejects', flags.rejects, true),
    named('--report', flags.report, true),
    named('--journal', flags.journal),
    named('--state', flags.state),
  ];
}
