/**
 * The import's human summary: the table of buckets, the reasons, the files written, a verdict that says what to do
 * next, and what the durable state did. (The --json object is built in ../import-outcome.ts.)
 */
import type { ImportStateReport, ImportSummary } from '../../core/import/index.js';
import type { Output } from '../output.js';
import { paddedRowsText } from './validate-table.js';
import { formatDuration, formatWait } from '../../duration.js';
import { duplicatesLine } from './duplicates-line.js';
import { omittedCellsLines } from './omitted-cells-lines.js';
import { notReplacedLine } from './not-replaced.js';
import type { InputFormat } from '../../io/source.js';

export interface SummaryContext {
  file: string;
  /** "https://api.example.com/" or "a local sandbox (…)". */
  target: string;
  rejectsPath?: string;
  /** The rejects file was not written: the run ended before its rejects were complete. */
  rejectsKept?: boolean;
  reportPath?: string;
  withUnchanged?: boolean;
  /** --pad-short-rows was given: the summary says how many rows it completed. */
  withPadded?: boolean;
  /** The input's format when its flag or name tells it: a CSV rejects file is for CSV (and workbook) input only. */
  inputFormat?: InputFormat;
  /** The exact command that sends what is left (cli/import-outcome.ts). */
  againCommand?: string;
  /** What the durable state did (resumed, refreshed, absent, shard, journal): a dim line each after the verdict. */
  state?: ImportStateReport;
}

/** The rejects file to advise: CSV for CSV and workbook input (its columns written back), NDJSON for any other. */
function suggestedRejects(format: InputFormat | undefined): string {
  if (format === 'csv' || format === 'xlsx') return 'fix-me.csv';
  return format ? 'fix-me.ndjson' : 'fix-me.ndjson (fix-me.csv for CSV input)';
}

const n = (value: number) => value.toLocaleString('en-US');
const plural = (value: number, one: string, many: string) => `${n(value)} ${value === 1 ? one : many}`;

export function renderImportSummary(summary: ImportSummary, context: SummaryContext, output: Output): void {
  const { color } = output;
  const rows: [string, number, (text: string) => string][] = [
    ['rows', summary.rows, color.bold],
    ['invalid', summary.invalid, summary.invalid ? color.yellow : color.dim],
    ...(context.withUnchanged
      ? [['unchanged', summary.unchanged, color.dim] as [string, number, (text: string) => string]]
      : []),
    ['imported', summary.importedCount, summary.importedCount ? color.green : color.dim],
    ['updated', summary.updatedCount, summary.updatedCount ? color.green : color.dim],
    ['skipped', summary.skipped, summary.skipped ? color.yellow : color.dim],
    ['rejected', summary.rejected, summary.rejected ? color.red : color.dim],
    ['failed', summary.failed, summary.failed ? color.red : color.dim],
  ];
  const width = Math.max(...rows.map(([, value]) => n(value).length));
  output.out(color.bold(`Import of ${context.file} to ${context.target}`));
  for (const [label, value, paint] of rows) output.out(`  ${label.padEnd(10)}${paint(n(value).padStart(width))}`);
  const seconds = summary.durationMs / 1000;
  const rate = seconds > 0 ? `${n(Math.round(summary.rows / seconds))} rows/s` : '';
  output.out(
    color.dim(
      `  ${plural(summary.batches, 'batch', 'batches')}, ${plural(summary.requests, 'request', 'requests')}, ${plural(summary.retries, 'retry', 'retries')} · ${seconds.toFixed(1)} s${rate ? ` · ${rate}` : ''}`,
    ),
  );
  if (context.withPadded) output.out(`  ${paddedRowsText(summary.paddedRows)}`);
  const duplicates = duplicatesLine(summary.duplicateMembers);
  if (duplicates) output.out(summary.duplicateMembers!.count > 0 ? color.yellow(duplicates) : duplicates);
  for (const line of omittedCellsLines(summary.omittedCells)) output.out(color.yellow(line));
  const reasons = (['invalid', 'skipped', 'rejected', 'failed'] as const).filter(
    (stage) => summary.topReasons[stage].length > 0,
  );
  if (reasons.length > 0) {
    output.out('Most common reasons:');
    for (const stage of reasons) {
      for (const { reason, count } of summary.topReasons[stage])
        output.out(`  ${stage.padEnd(9)}${n(count).padStart(width)}  ${reason}`);
    }
  }
  const notImported = summary.invalid + summary.skipped + summary.rejected + summary.failed;
  if (context.rejectsPath && context.rejectsKept)
    output.out(color.yellow(notReplacedLine([{ path: context.rejectsPath, holds: 'rejects' }])));
  else if (context.rejectsPath && summary.outputError?.kind === 'rejects')
    output.out(color.red(`Not written: ${context.rejectsPath} (it would be incomplete; error below)`));
  else if (context.rejectsPath)
    output.out(`Wrote ${n(notImported)} record${notImported === 1 ? '' : 's'} not imported to ${context.rejectsPath}`);
  if (context.reportPath) output.out(`Wrote the report to ${context.reportPath}`);
  output.out(verdict(summary, context, output));
  if (context.state) for (const note of stateNotes(context.state, summary.failed)) output.out(output.color.dim(note));
}

function verdict(summary: ImportSummary, context: SummaryContext, output: Output): string {
  const { color } = output;
  if (summary.stopReason === 'credentials') {
    return color.red(
      `Stopped: the server refused the credentials; ${plural(summary.failed, 'record', 'records')} not confirmed.`,
    );
  }
  if (summary.stopReason === 'output') {
    return color.red(
      `Stopped: an output file could not be written (error below); ${plural(summary.failed, 'record', 'records')} not confirmed, nothing more was sent.`,
    );
  }
  if (summary.stopReason === 'server-wait' && summary.serverWait) {
    const { retryAfterMs, maxRetryAfterMs } = summary.serverWait;
    return color.red(
      `Stopped: the server asked to wait ${formatWait(retryAfterMs)} (Retry-After), longer than the ${formatDuration(maxRetryAfterMs)} this run may wait; ${plural(summary.failed, 'record', 'records')} not confirmed, nothing more was sent.`,
    );
  }
  if (summary.stopReason === 'reader') {
    const unconfirmed =
      summary.failed > 0 ? `, ${plural(summary.failed, 'record', 'records')} of them not confirmed` : '';
    return color.red(
      `Stopped after record ${n(summary.rows)}: ${summary.stopMessage ?? 'the input could not be read on'} (error below); the records before it are accounted above${unconfirmed}, nothing more was read or sent.`,
    );
  }
  if (summary.stopReason === 'unreachable') {
    return color.red(
      `Stopped early: the first batches all failed the same way (error below); ${n(summary.failed)} records not confirmed, nothing more was sent.`,
    );
  }
  if (summary.inputError) {
    return color.red(
      `Stopped: the input is unreadable after record ${n(summary.rows)} (error below); the records before it are accounted above. Fix the file and import it again: records already imported are simply updated.`,
    );
  }
  if (summary.failed > 0) {
    const why = summary.stopReason ? 'the run was interrupted: ' : '';
    const feed = context.rejectsPath ? `, or import the failed lines of ${context.rejectsPath}` : '';
    return color.red(
      `${why}${plural(summary.failed, 'record', 'records')} not confirmed. They are safe to send again${context.againCommand ? `${feed ? ` (${feed.slice(2)})` : ''}; run: ${context.againCommand}` : `: run the same command again${feed}.`}`,
    );
  }
  const refused = summary.invalid + summary.skipped + summary.rejected;
  if (refused > 0) {
    const path = context.rejectsPath;
    const hint = !path
      ? ` Add --rejects ${suggestedRejects(context.inputFormat)} to get them in a file to fix and feed back.`
      : path.toLowerCase().endsWith('.csv')
        ? ` Fix them in ${path} and import that file as it is.`
        : ` Their inputs are in ${path}: jq -c .input ${path} > fixed.ndjson, fix, and import fixed.ndjson.`;
    return color.yellow(
      `Done, ${plural(refused, 'record', 'records')} not imported (invalid, skipped or rejected).${hint}`,
    );
  }
  if (summary.importedCount + summary.updatedCount === 0) {
    // a --changed-only night with nothing changed, or an empty file: nothing was sent, and that is fine
    return color.green(
      summary.rows === 0
        ? 'Done: the input held no records; nothing was sent.'
        : 'Done: every record unchanged since the last confirmed run; nothing was sent.',
    );
  }
  return color.green(
    `Done: every record ${summary.unchanged > 0 ? 'imported, updated or unchanged' : 'imported or updated'}.`,
  );
}

/** Lines for the human summary: what an earlier run settled, other shards, where the journal is and why. */
function stateNotes(state: ImportStateReport, failed: number): string[] {
  const notes: string[] = [];
  const n = (count: number) => count.toLocaleString('en-US');
  if (state.refreshed > 0)
    notes.push(`refreshed: ${n(state.refreshed)} unchanged members sent again (--refresh-after)`);
  if (state.absentFromInput)
    notes.push(
      `absent: ${n(state.absentFromInput)} members in the state are not in this input (memberctl state absent --state FILE lists them)`,
    );
  if (state.resumedRecords > 0) {
    // the same count as the "resuming from" notice at the start: "2 earlier runs" there, not "an earlier run" here
    const runs = state.resumedRuns ?? 1;
    const by = runs > 1 ? `${n(runs)} earlier runs` : 'an earlier run';
    notes.push(`resumed: ${n(state.resumedRecords)} records were settled by ${by} (counted above, not sent again)`);
  }
  if (state.shard)
    notes.push(
      `shard ${state.shard.index}/${state.shard.count}: ${n(state.otherShards)} records belong to other shards (not counted above)`,
    );
  if (state.journalPath && state.journalKept) {
    notes.push(
      failed > 0
        ? `journal kept: ${state.journalPath} — run again with --resume to send only the ${n(failed)} records not confirmed`
        : `journal kept: ${state.journalPath}`,
    );
  }
  return notes;
}
