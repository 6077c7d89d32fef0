/**
 * --report FILE: what cron reads the morning after. Every report says how the run ended (exitCode, error), when
 * (startedAt, finishedAt), what it read (input) and where it sent (target), beside the --json counts. A run that
 * fails, even before anything was sent, still replaces the report, so last night's success is never read as
 * tonight's. Written through io/output-file (temp file and rename: never half a report).
 */
import { isMemberctlError } from '../errors.js';
import { rm } from 'node:fs/promises';
import { writeOutputFile } from '../io/output-file.js';
import { OutputFailure, resourceCause } from '../io/output-failure.js';
import { exitCodeFor } from './exit-codes.js';
import { errorToJson } from './output.js';
import { maskKnownSecrets } from './run-secrets.js';

export interface RunReport {
  /** The target, once it is known (a run can fail before). */
  target?: string;
  /** The one object --json prints and --report writes: how the run ended, when, what it read, where, the counts. */
  result(exitCode: number, counts: object, error?: unknown): Record<string, unknown>;
  /**
   * Writes the report of a run that ended with a summary. A full disk or a size limit is returned (the caller
   * shows it after the summary), and last night's report is removed then: cron must never read it as tonight's.
   */
  finished(result: Record<string, unknown>): Promise<OutputFailure | undefined>;
  /** Writes the report of a run that ended with an error and no summary; never throws (the error is reported). */
  failed(error: unknown): Promise<void>;
}

export function runReport(path: string | undefined, input: string, force?: boolean): RunReport {
  const startedAt = new Date().toISOString();
  let written = false;
  const write = async (result: Record<string, unknown>) => {
    written = true;
    // the error may quote the input, which may be a token file given by mistake: no token the run knows of
    if (path) await writeOutputFile(path, 'report', maskKnownSecrets(JSON.stringify(result, null, 2)), { force });
  };
  const self: RunReport = {
    result(exitCode, counts, error) {
      const finishedAt = new Date().toISOString();
      return {
        exitCode,
        startedAt,
        finishedAt,
        input,
        target: self.target ?? null,
        error: error === undefined ? null : errorToJson(error).error,
        ...counts,
      };
    },
    async finished(result) {
      try {
        await write(result);
        return undefined;
      } catch (failure) {
        const cause = resourceCause(failure);
        if (!path || cause === undefined) throw failure;
        await rm(path, { force: true }).catch(() => undefined);
        return new OutputFailure(
          'report',
          path,
          cause,
          "Free some space (or raise the limit); the import itself is accounted above, and last night's report was removed.",
        );
      }
    },
    async failed(error) {
      if (written) return; // the summary's report is out; an error after it (closing a file) does not undo it
      await write(self.result(exitCodeFor(isMemberctlError(error) ? error.category : 'internal'), {}, error)).catch(
        () => undefined,
      );
    },
  };
  return self;
}
