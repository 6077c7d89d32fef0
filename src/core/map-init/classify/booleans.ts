/**
 * Booleans and status words: how a cell spells true or false, in the languages exports come in. Spellings the
 * member fields read as they are (true/false, yes/no, y/n, 1/0) need no `values` map; the others get one built from
 * the distinct cells found. A word whose meaning for "is this member active" is not clear (Pending, on hold,
 * passiv) is left for the user: its entry in the map is null, and the mapping asks.
 */
import { CellProblem, toBoolean } from '../../mapping/coerce.js';

const TRUE_WORDS = new Set(
  'true|t|yes|y|1|x|on|active|enabled|current|subscribed|member|live|valid|paid|ja|j|wahr|aktiv|bezahlt|oui|vrai|actif|actif·ve|payé|sí|si|verdadero|activo|pagado|sim|verdadeiro|ativo|pago|waar|actief|betaald'.split(
    '|',
  ),
);
const FALSE_WORDS = new Set(
  'false|f|no|n|0|off|inactive|disabled|lapsed|cancelled|canceled|expired|churned|closed|unsubscribed|suspended|deleted|former|resigned|nein|falsch|inaktiv|ausgetreten|gekündigt|unbezahlt|non|faux|inactif|résilié|falso|inactivo|baja|cancelado|não|nao|inativo|nee|onwaar|inactief|opgezegd'.split(
    '|',
  ),
);

/** true or false for a spelling of either, undefined for any other cell. */
export function booleanSpelling(cell: string): boolean | undefined {
  const lower = cell.trim().toLowerCase();
  return TRUE_WORDS.has(lower) ? true : FALSE_WORDS.has(lower) ? false : undefined;
}

/** True when the member fields read every cell as it is (no `values` map needed). */
export function readsAsBoolean(cells: readonly string[]): boolean {
  return cells.every((c) => !(toBoolean(c) instanceof CellProblem));
}

/**
 * A `values` map from the distinct cells (keys in lower case: the map matches any case), each true, false, or null
 * for a word whose polarity the file does not tell. Up to 20 distinct words; a column with more is not a status.
 */
export function valuesMap(cells: readonly string[]): Record<string, boolean | null> | undefined {
  const distinct = [...new Set(cells.map((c) => c.toLowerCase()))];
  if (distinct.length > 20) return undefined;
  return Object.fromEntries(distinct.map((cell) => [cell, booleanSpelling(cell) ?? null]));
}
