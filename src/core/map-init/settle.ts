/**
 * Settling map init's decisions with the user's answers (`map init --interactive`): each answer is checked (a real
 * zone, a format that reads the sampled cells, a header the file has, a date-time with an offset) and written into
 * the mapping's rule; the decision's entry goes once every question about it is answered. The JSON is the same
 * a user editing by hand would write.
 */
import { compileDateFormat, DateFormatError } from '../mapping/rules/date-format.js';
import { openZone, TimeZoneError } from '../mapping/rules/time-zone.js';
import type { MapInitResult } from './map-init.js';
import { metadataKey } from './metadata-key.js';
import type { Decision } from './required.js';

export type Answer =
  | { kind: 'accept' }
  | { kind: 'timeZone'; zone: string }
  | { kind: 'format'; format: string }
  | { kind: 'values'; values: Record<string, boolean> }
  | { kind: 'column'; column: string }
  | { kind: 'value'; value: string | boolean };

type Mapping = MapInitResult['mapping'];
type Rule = Record<string, unknown>;

/**
 * Applies one answer to the mapping: the answer's problem in words (ask again), or undefined when it applied. The
 * caller closes the decision's entry once every question under its key is answered.
 */
export function settleDecision(
  mapping: Mapping,
  decision: Decision,
  answer: Answer,
  headers: readonly string[],
): string | undefined {
  return apply(mapping, decision, answer, headers);
}

/** Deletes a settled entry (and the key itself when none is left): the mapping then runs. */
export function closeDecision(mapping: Mapping, key: string): void {
  if (!mapping.decisions) return;
  delete mapping.decisions[key];
  if (Object.keys(mapping.decisions).length === 0) delete mapping.decisions;
}

function apply(mapping: Mapping, decision: Decision, answer: Answer, headers: readonly string[]): string | undefined {
  if (answer.kind === 'accept') return undefined;
  if (answer.kind === 'timeZone') {
    try {
      openZone(answer.zone);
    } catch (error) {
      if (error instanceof TimeZoneError)
        return `"${answer.zone}" is not a time zone (an IANA name: Europe/Oslo, America/New_York, UTC)`;
      throw error;
    }
    return withRule(mapping, decision, (rule) => void (rule.timeZone = answer.zone));
  }
  if (answer.kind === 'format') {
    try {
      const format = compileDateFormat(answer.format);
      const misses = decision.samples.filter((cell) => !/^\d{4}-\d{2}-\d{2}/.test(cell) && !isDate(format.parse(cell)));
      if (misses.length > 0)
        return `"${answer.format}" does not read ${misses.map((c) => JSON.stringify(c)).join(', ')}`;
    } catch (error) {
      if (error instanceof DateFormatError) return error.message;
      throw error;
    }
    return withRule(mapping, decision, (rule) => void (rule.format = answer.format));
  }
  if (answer.kind === 'values')
    return withRule(mapping, decision, (rule) => void (rule.values = { ...(rule.values as object), ...answer.values }));
  if (answer.kind === 'column') return useColumn(mapping, decision, answer.column, headers);
  if (decision.field === 'createdAt' && !isInstant(String(answer.value)))
    return `"${answer.value}" is not a date-time with an offset (e.g. 2024-01-01T00:00:00Z)`;
  dropColumnProposal(mapping, decision);
  mapping.fields[decision.field] = { value: answer.value };
  return undefined;
}

function isDate(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && 'year' in parsed; // not a DateRefusal
}

function isInstant(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) && !Number.isNaN(Date.parse(text))
  );
}

/** Changes the rule object of the decision's column that feeds its field (made an object from a bare field name). */
function withRule(mapping: Mapping, decision: Decision, change: (rule: Rule) => void): string | undefined {
  const column = decision.column ?? '';
  const current = mapping.columns[column];
  const list = Array.isArray(current) ? [...current] : [current];
  const at = list.findIndex((one) => (typeof one === 'string' ? one : (one as Rule)?.field) === decision.field);
  if (at < 0) return `the mapping no longer maps "${column}" to ${decision.field}`;
  const rule: Rule = typeof list[at] === 'string' ? { field: list[at] } : { ...(list[at] as Rule) };
  change(rule);
  list[at] = rule;
  mapping.columns[column] = Array.isArray(current) ? list : rule;
  return undefined;
}

/** Another column feeds the decision's field: it must be one of the file's headers. */
function useColumn(
  mapping: Mapping,
  decision: Decision,
  column: string,
  headers: readonly string[],
): string | undefined {
  if (!headers.includes(column))
    return `"${column}" is not a header of the file (${headers.map((h) => `"${h}"`).join(', ')})`;
  dropColumnProposal(mapping, decision);
  const current = mapping.columns[column];
  const others = current === undefined || current === null ? [] : Array.isArray(current) ? current : [current];
  const kept = others.filter(
    (one) => !/^metadata\.|^customProperties\./.test(typeof one === 'string' ? one : String((one as Rule).field)),
  );
  mapping.columns[column] = kept.length === 0 ? decision.field : [decision.field, ...kept];
  return undefined;
}

/** The proposal the answer replaces: the field's placeholder, or the proposed column's feed of the field. */
function dropColumnProposal(mapping: Mapping, decision: Decision): void {
  delete mapping.fields[decision.field];
  if (!decision.column) return;
  const current = mapping.columns[decision.column];
  const list = (Array.isArray(current) ? current : [current]).filter(
    (one) => (typeof one === 'string' ? one : (one as Rule)?.field) !== decision.field,
  );
  mapping.columns[decision.column] =
    list.length === 0 ? `metadata.${metadataKey(decision.column)}` : list.length === 1 ? list[0] : list;
}
