/** validate on a terminal: the first invalid records as a table (one line per issue), then a summary. */
import type { ValidateStats } from '../../core/validate/validate-file.js';
import type { Output } from '../output.js';
import { duplicatesLine } from './duplicates-line.js';
import { omittedCellsLines } from './omitted-cells-lines.js';

export function renderValidateSummary(stats: ValidateStats, output: Output, rejectsFormat: 'csv' | 'ndjson'): void {
  const { color } = output;
  if (stats.sample.length > 0) {
    const rows = stats.sample.flatMap((invalid) =>
      invalid.issues.map((issue, i) => ({
        record: i === 0 ? String(invalid.record) : '',
        line: i === 0 ? String(invalid.line) : '',
        memberId: i === 0 ? clip(invalid.memberId ?? '-', 36) : '',
        issue: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
      })),
    );
    const width = (key: 'record' | 'line' | 'memberId', title: string) =>
      Math.max(title.length, ...rows.map((r) => r[key].length));
    const [wr, wl, wm] = [
      width('record', 'record'),
      width('line', 'line'),
      Math.min(36, width('memberId', 'memberId')),
    ];
    output.out(color.bold(`Invalid records in ${stats.file}:`));
    output.out(color.dim(`  ${'record'.padStart(wr)}  ${'line'.padStart(wl)}  ${'memberId'.padEnd(wm)}  issue`));
    for (const r of rows) {
      output.out(`  ${r.record.padStart(wr)}  ${r.line.padStart(wl)}  ${r.memberId.padEnd(wm)}  ${color.red(r.issue)}`);
    }
    const more = stats.invalid - stats.sample.length;
    if (more > 0) {
      const where = stats.rejects
        ? `all of them are in ${stats.rejects.path}`
        : `list them all with --rejects fix-me.${rejectsFormat}, or --json`;
      output.out(color.dim(`  … and ${more} more invalid record${more === 1 ? '' : 's'}: ${where}`));
    }
    output.out('');
  }
  const seconds = (stats.durationMs / 1000).toFixed(1);
  const rate =
    stats.durationMs > 0
      ? `, ${Math.round((stats.rows * 1000) / stats.durationMs).toLocaleString('en-US')} rows/s`
      : '';
  const verdict =
    stats.invalid === 0
      ? color.green(`${stats.valid} valid`)
      : `${stats.valid} valid, ${color.red(`${stats.invalid} invalid`)}`;
  output.out(
    `${stats.file}: ${stats.rows} record${stats.rows === 1 ? '' : 's'}, ${verdict} (${stats.format}, ${seconds} s${rate})`,
  );
  if (stats.paddedRows !== undefined) output.out(paddedRowsText(stats.paddedRows));
  const duplicates = duplicatesLine(stats.duplicateMembers);
  if (duplicates) output.out(stats.duplicateMembers.count > 0 ? color.yellow(duplicates) : duplicates);
  for (const line of omittedCellsLines(stats.omittedCells)) output.out(color.yellow(line));
  if (stats.invalid > stats.sample.length) {
    output.out('Most common reasons:');
    const w = String(stats.reasons[0]!.count).length;
    for (const { reason, count } of stats.reasons) output.out(`  ${String(count).padStart(w)}  ${reason}`);
  }
  if (stats.output)
    output.out(`Wrote ${stats.output.items} item${stats.output.items === 1 ? '' : 's'} to ${stats.output.path}`);
  if (stats.rejects)
    output.out(
      `Wrote ${stats.rejects.records} rejected record${stats.rejects.records === 1 ? '' : 's'} to ${stats.rejects.path}`,
    );
  else if (stats.invalid > 0 && rejectsFormat === 'csv') {
    output.out(
      color.dim(
        'To fix them: --rejects fix-me.csv writes the invalid rows with stage and error columns; fix and validate it as is.',
      ),
    );
  } else if (stats.invalid > 0) {
    output.out(color.dim('To fix them: --rejects fix-me.ndjson writes each invalid record with its reason.'));
  }
}

/** What --pad-short-rows did, said after the counts by validate and import alike. */
export function paddedRowsText(count: number): string {
  const rows = `${count.toLocaleString('en-US')} row${count === 1 ? '' : 's'}`;
  return `${rows} padded (--pad-short-rows): fewer cells than the header, the missing trailing ones read as empty`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
