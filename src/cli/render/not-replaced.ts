/**
 * The one wording for outputs a run did not put in place because it ended before they were complete (the input
 * broke midway, an output failed): import's summary and validate's stderr say it alike, and --json says it as
 * `outputWritten: false` / `rejectsWritten: false`.
 */

/** An output asked for and left as it was: its path and what it would have held ("rejects", "valid items"). */
export interface KeptOutput {
  path: string;
  holds: string;
}

/** "Not replaced: fix-me.csv (the run ended before its rejects were complete; a file from before stays as it was)" */
export function notReplacedLine(kept: readonly KeptOutput[]): string {
  const paths = kept.map((output) => output.path).join(', ');
  const holds = kept.map((output) => output.holds).join(' and ');
  const stays = kept.length === 1 ? 'a file from before stays as it was' : 'files from before stay as they were';
  return `Not replaced: ${paths} (the run ended before its ${holds} were complete; ${stays})`;
}
