import type { ResultCategory } from '../../errors.js';
import type { ImportSummary } from './types.js';

/** What became of an import, for the exit code: the worst bucket a record ended in decides. */
export function importCategory(summary: ImportSummary): ResultCategory {
  if (summary.stopReason === 'credentials') return 'credentials';
  if (summary.inputError) return 'usage';
  if (summary.failed > 0 || summary.stopReason) return 'not-confirmed';
  if (summary.invalid + summary.skipped + summary.rejected > 0) return 'partial';
  return 'ok';
}
