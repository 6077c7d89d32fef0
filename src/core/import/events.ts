/**
 * What the pipeline tells its observers (progress bar, JSON logs for cron). Events are per batch, never per
 * record, so a million rows cost a few thousand events. They carry counts, record numbers and reasons; never the
 * token and never member data (a rejected record's server message goes to the rejects file, not here).
 */
import type { ImportSummary, StopReason } from './types.js';

export interface Progress {
  /** Records read and counted (after --limit and --shard). */
  recordsRead: number;
  /** Records with a final outcome: invalid, unchanged, confirmed, skipped, rejected or failed. */
  settled: number;
  /** Records the server confirmed (imported or updated) or skipped. */
  confirmed: number;
  inFlight: number;
  /** Requests allowed in flight now (the adaptive limit moves). */
  concurrency: number;
  bytesRead?: number;
  totalBytes?: number;
}

export type ImportEvent =
  | {
      type: 'run-started';
      batchSize: number;
      maxBatchBytes: number;
      concurrency: number;
      adaptive: boolean;
      totalBytes?: number;
    }
  | {
      type: 'batch-sent';
      batch: number;
      firstRecord: number;
      lastRecord: number;
      size: number;
      bytes: number;
      attempt: 'first' | 'bisect' | 'split';
    }
  | {
      type: 'batch-confirmed';
      batch: number;
      firstRecord: number;
      lastRecord: number;
      size: number;
      importedCount: number;
      updatedCount: number;
      skipped: number;
      durationMs: number;
    }
  | { type: 'batch-bisected'; batch: number; firstRecord: number; lastRecord: number; size: number; status: 400 }
  | {
      type: 'batch-split';
      batch: number;
      firstRecord: number;
      lastRecord: number;
      size: number;
      status: 413;
      batchSize: number;
    }
  | {
      type: 'batch-failed';
      batch: number;
      firstRecord: number;
      lastRecord: number;
      size: number;
      status?: number;
      message: string;
    }
  | { type: 'records-rejected'; batch: number; records: number[]; status: 400 | 413 }
  | { type: 'retry'; reason: string; delayMs: number; attempt?: number; status?: number }
  | { type: 'warning'; code: string; message: string }
  | { type: 'progress'; progress: Progress }
  | { type: 'stopping'; reason: StopReason; graceMs?: number }
  | { type: 'finished'; summary: ImportSummary };

export type ImportEventListener = (event: ImportEvent) => void;

/** Several listeners behind one callback; a listener that throws never breaks the import. */
export function fanOut(...listeners: (ImportEventListener | undefined)[]): ImportEventListener {
  const active = listeners.filter((listener): listener is ImportEventListener => listener !== undefined);
  return (event) => {
    for (const listener of active) {
      try {
        listener(event);
      } catch {
        // an observer's bug must not lose records
      }
    }
  };
}
