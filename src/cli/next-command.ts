/**
 * The exact command to run next, printed after a run that left work to do (Ctrl-C, records not confirmed, an
 * early stop). "Run the same command again" was wrong advice: with a journal kept, the same command is refused
 * until it says --resume. So the advice is this run's own arguments, with --restart swapped for --resume when a
 * journal was kept, quoted for a POSIX shell so that it can be pasted as it is.
 */
import type { ImportSummary } from '../core/import/index.js';
import { shellCommand } from '../core/shell-command.js';

export function againCommand(argv: readonly string[], journalKept: boolean): string {
  const args = argv.filter((arg) => arg !== '--restart' && (!journalKept || arg !== '--resume'));
  if (journalKept) args.push('--resume');
  return shellCommand(['memberctl', ...args]);
}

/**
 * `{nextCommand}` when the run left records that running again sends (not after an input error: the file must be
 * fixed first), else nothing: the --json object, --report and the JSON log's finished line all carry this one.
 */
export function nextCommandJson(summary: ImportSummary, again: string): { nextCommand?: string } {
  return (summary.failed > 0 || summary.stopReason) && !summary.inputError ? { nextCommand: again } : {};
}
