/**
 * Watches the outputs written during an import (the rejects file, the journal, the state) for resource failures
 * (io/output-failure.ts). The first one stops the run like a Ctrl-C, for that reason: the pipeline still accounts
 * for every record (what is not sent counts as failed) and the journal is kept, so --resume is exact.
 *
 * Swallowing the failure from then on is safe: the journal and the state only ever lose confirmations (a member
 * they miss is sent again on --resume or the next --changed-only run: an upsert), and the rejects file that
 * failed is dropped whole (its temp file removed) and written again, whole, by --resume, which restores skipped
 * and rejected records from the journal and validates the input again. Any other error is thrown on as before.
 */
import { OutputFailure, resourceCause, type OutputKind } from '../../io/output-failure.js';
import type { RejectsWriter } from '../../io/rejects-writer.js';
import type { ImportHooks } from './types.js';

export interface OutputGuard {
  /** Aborted with the OutputFailure as its reason: for runPipeline's outputFailedSignal. */
  readonly signal: AbortSignal;
  readonly failure: OutputFailure | undefined;
  rejects(writer: RejectsWriter, path: string): RejectsWriter;
  hooks(hooks: ImportHooks, files: { journal?: string; state?: string }): ImportHooks;
  /** The run's lock on the journal or the state was taken over by another run: it stops as on a failed output. */
  lockLost(kind: 'journal' | 'state', file: string): void;
}

export function outputGuard(): OutputGuard {
  const controller = new AbortController();
  let failure: OutputFailure | undefined;
  /** True when `error` is a resource failure (recorded, the run told to stop); false for anything else. */
  const caught = (kind: OutputKind, file: string | undefined, error: unknown): boolean => {
    const cause = resourceCause(error);
    if (cause === undefined || file === undefined) return false;
    if (!failure) {
      failure = new OutputFailure(kind, file, cause);
      controller.abort(failure);
    }
    return true;
  };
  /** Calls `call`, turning a resource failure (thrown or rejected) into a stop; `kindOf` says whose file failed. */
  const guarded = (
    kindOf: (error: unknown) => [OutputKind, string | undefined],
    call: () => Promise<void> | void,
  ): Promise<void> | undefined => {
    const handle = (error: unknown) => {
      if (!caught(...kindOf(error), error)) throw error;
    };
    try {
      return call()?.catch(handle);
    } catch (error) {
      handle(error);
      return undefined;
    }
  };

  return {
    signal: controller.signal,
    lockLost(kind, file) {
      if (failure) return;
      failure = new OutputFailure(
        kind,
        file,
        'LOCK_LOST',
        'This run could not renew its lock (removed by hand, or the process stopped for a whole lease) and another run has it now: let that run finish, then run again with --resume.',
      );
      controller.abort(failure);
    },
    get failure() {
      return failure;
    },
    rejects(writer, path) {
      return {
        format: writer.format,
        write(entry) {
          if (failure?.kind === 'rejects') return undefined; // the file is dropped anyway: counting goes on
          return guarded(
            () => ['rejects', path],
            () => writer.write(entry),
          );
        },
        async close() {
          if (failure?.kind === 'rejects') return writer.abort(); // never half a rejects file
          try {
            await writer.close();
          } catch (error) {
            if (!caught('rejects', path, error)) throw error;
            await writer.abort();
          }
        },
        abort: () => writer.abort(),
      };
    },
    hooks(hooks, files) {
      const { onSettled, beforeSend } = hooks;
      const watched = { ...hooks };
      // SQLite's errors are the state's; the journal's are plain file-system errors
      if (onSettled)
        watched.onSettled = (batch) =>
          guarded(
            (error) =>
              resourceCause(error)?.startsWith('SQLITE_') ? ['state', files.state] : ['journal', files.journal],
            () => onSettled(batch),
          );
      // beforeSend writes too (the source hashes it learns, in batches): the member is then sent, only an upsert
      if (beforeSend) {
        watched.beforeSend = (candidate, json) => {
          try {
            return beforeSend(candidate, json);
          } catch (error) {
            if (!caught('state', files.state, error)) throw error;
            return 'send';
          }
        };
      }
      return watched;
    },
  };
}
