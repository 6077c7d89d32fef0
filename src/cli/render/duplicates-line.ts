/**
 * The one line validate and import print about duplicate memberIds (issue 24 item 4), only when the input repeats
 * one: how many memberIds have rows with other content, which rule decided (the last row in file order wins, or
 * --duplicates refuse), the first few with their lines; identical repeats are counted as harmless.
 */
import type { DuplicateMembersReport } from '../../core/duplicates/duplicate-members.js';

const n = (value: number) => value.toLocaleString('en-US');

export function duplicatesLine(report: DuplicateMembersReport | undefined): string | undefined {
  if (!report || (report.count === 0 && report.identicalRows === 0)) return undefined;
  const identical =
    report.identicalRows > 0
      ? `${n(report.identicalRows)} row${report.identicalRows === 1 ? '' : 's'} repeating an earlier row exactly (harmless)`
      : '';
  if (report.count === 0) return `Duplicate memberIds: ${identical}.`;
  const rule =
    report.rule === 'refuse'
      ? `their ${n(report.laterRows)} later row${report.laterRows === 1 ? ' is' : 's are'} invalid (--duplicates refuse)`
      : 'the last row in file order wins (--duplicates refuse makes the later rows invalid)';
  const ids = report.sample.map(({ memberId, lines }) => `${JSON.stringify(memberId)} lines ${lines.join(', ')}`);
  const more = report.count > ids.length ? ', …' : '';
  return `Duplicate memberIds: ${n(report.count)} on rows with other content, ${rule}: ${ids.join('; ')}${more}${identical ? `; ${identical}` : ''}.`;
}
