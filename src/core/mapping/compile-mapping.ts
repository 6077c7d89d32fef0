/**
 * A mapping file's JSON, already parsed, compiled into one reader per rule (mapping-file.ts reads the file): each
 * rule is checked by its schema (mapping-schema.ts), its target resolved (targets.ts) and its cell rules compiled
 * (rules/). Every problem of the file is gathered, so that one run lists them all.
 */
import { UsageError, type Problem } from '../../errors.js';
import {
  columnRuleSchema,
  describeSchemaIssues,
  fieldRuleSchema,
  mappingFileSchema,
  type CellOptions,
} from './mapping-schema.js';
import type { Feed, FieldRule, Mapping } from './mapping-file.js';
import { compileCellReader, RuleError, type CellReader, type RuleKey } from './rules/cell-rule.js';
import { closestField, resolveFieldTarget, targetPath, type FieldTarget } from './targets.js';

const DECISION_HINT =
  'map init could not tell this from the file: edit the rule it names (docs/mapping.md), then delete the entry from "decisions"; or run memberctl map init FILE --interactive --out MAPPING.';

export const FORMAT_HINT =
  'A mapping file looks like {"columns": {"E-mail Address": "email", "Internal Notes": null, ' +
  '"Signup": {"field": "createdAt", "format": "dd.MM.yyyy HH:mm", "timeZone": "Europe/Oslo"}}, "fields": {"isActive": {"value": true}}}; see docs/mapping.md';
const TARGET_HINT =
  'Targets are upsert item fields (email), address.<field>, metadata.<key> or customProperties.<key>; null drops the column.';
const COLUMN_HINT =
  'A column rule is a field name, null (drops the column), or {"field": "createdAt", "format": "dd.MM.yyyy", ...} with the keys in docs/mapping.md#cell-rules.';
const FIELD_HINT =
  'A fields rule is {"value": true}, {"default": "basic"}, {"firstOf": ["Work Email", "Home Email"]} or {"column": "Mail"}, with the cell rules of a column; see docs/mapping.md#fields.';
const RULE_HINTS: Record<RuleKey, string> = {
  type: '"type" is for customProperties.<key> only: string, number, boolean or json (docs/mapping.md#cell-rules).',
  values:
    '"values" maps cells to what is sent, e.g. {"active": true, "lapsed": false}; cells are looked up trimmed, in any case (docs/mapping.md#cell-rules).',
  otherwise:
    '"otherwise" sits beside "values": what a cell the values do not list becomes (docs/mapping.md#cell-rules).',
  defaultRegion:
    '{"field": "phone", "convert": "e164", "defaultRegion": "NO"} reads numbers written without +country (docs/mapping.md#cell-rules).',
  format:
    'Unicode date-pattern letters, as in java.time and date-fns: yyyy MM dd HH mm ss, a (AM/PM), XXX (offset) (docs/mapping.md#format).',
  timeZone:
    'An IANA zone such as Europe/Oslo, America/New_York or UTC (`timedatectl list-timezones` lists them; docs/mapping.md#timezone).',
  twoDigitYearStart:
    'The first year of the 100 that yy reads into, with a "format" that has yy (docs/mapping.md#format).',
  onInvalid:
    '"onInvalid": "omit" sends a record without a field whose cell is bad, for optional fields (docs/mapping.md#cell-rules).',
};

/** Every problem of one mapping file, so that one run lists them all: each names the file and the JSON path, with a hint. */
export class Problems {
  readonly #list: Problem[] = [];
  constructor(readonly file: string) {}

  add(message: string, hint: string): undefined {
    this.#list.push({ message: `mapping file ${this.file}: ${message}`, hint });
    return undefined;
  }

  throwIfAny(): void {
    const [first, ...rest] = this.#list;
    if (!first) return;
    const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '';
    throw new UsageError(`${first.message}${more}`, { code: 'mapping-file', hint: first.hint, problems: this.#list });
  }
}

export function parseMapping(json: unknown, file: string): Mapping {
  const problems = new Problems(file);
  const parsed = mappingFileSchema.safeParse(json, { reportInput: true });
  if (!parsed.success)
    for (const line of describeSchemaIssues(parsed.error.issues, '', 'file')) problems.add(line, FORMAT_HINT);
  // past a wrong top-level key, the rules are still checked: every problem is reported in one run. The rules are
  // taken from the JSON as parsed, not from zod's copy: a record's copy assigns each key, and an assigned "__proto__"
  // sets the copy's prototype instead of adding the key (the rule was lost without a word)
  const ruleSet = (key: 'columns' | 'fields') => plainObject((json as Record<string, unknown> | null)?.[key]) ?? {};
  const columns = new Map<string, Feed[] | null>();
  for (const [column, rule] of Object.entries(ruleSet('columns'))) {
    if (rule === null) {
      columns.set(column, null);
      continue;
    }
    const where = `columns["${column}"]`;
    const feeds = (Array.isArray(rule) ? rule : [rule]).map((one, i) =>
      feedOf(one, Array.isArray(rule) ? `${where}[${i}]` : where, problems),
    );
    if (feeds.every((feed) => feed !== undefined)) columns.set(column, feeds);
  }
  const fields: FieldRule[] = [];
  for (const [name, rule] of Object.entries(ruleSet('fields'))) {
    const field = fieldRuleOf(name, rule, `fields["${name}"]`, problems);
    if (field) fields.push(field);
  }
  if (parsed.success)
    for (const [key, question] of Object.entries(parsed.data.decisions ?? {}))
      problems.add(`decisions["${key}"]: not settled: ${question}`, DECISION_HINT);
  problems.throwIfAny();
  const fingerprint = JSON.stringify([ruleSet('columns'), ruleSet('fields'), process.versions.tz ?? '']);
  return { file, columns, fields, fingerprint };
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The rule's "values" as the file wrote them (checked by the schema already): zod's copy of a record loses a key
 * "__proto__" (see parseMapping), and a cell "__proto__" is as much data as any other.
 */
function withRawValues<T extends { values?: Record<string, unknown> }>(parsed: T, rule: object): T {
  const values = (rule as { values?: unknown }).values;
  return parsed.values === undefined ? parsed : { ...parsed, values: plainObject(values) ?? parsed.values };
}

function feedOf(rule: unknown, where: string, problems: Problems): Feed | undefined {
  if (typeof rule === 'string') {
    const target = compiled(where, rule, {}, problems);
    return target && { ...target, emptyAsNull: false, omitInvalid: false };
  }
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return problems.add(
      `${where}: expected a field name, null (drop the column), or a rule such as {"field": "createdAt", "format": "dd.MM.yyyy"}`,
      COLUMN_HINT,
    );
  }
  const parsed = columnRuleSchema.safeParse(rule, { reportInput: true });
  if (!parsed.success) {
    for (const line of describeSchemaIssues(parsed.error.issues, where, 'column')) problems.add(line, COLUMN_HINT);
    return undefined;
  }
  const { field, ...options } = withRawValues(parsed.data, rule);
  const target = compiled(where, field, options, problems);
  return target && { ...target, emptyAsNull: options.emptyAsNull === true, omitInvalid: options.onInvalid === 'omit' };
}

function fieldRuleOf(name: string, rule: unknown, where: string, problems: Problems): FieldRule | undefined {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return problems.add(
      `${where}: expected a rule such as {"value": true}, {"default": "basic"} or {"firstOf": ["Work Email", "Home Email"]}`,
      FIELD_HINT,
    );
  }
  const parsed = fieldRuleSchema.safeParse(rule, { reportInput: true });
  if (!parsed.success) {
    for (const line of describeSchemaIssues(parsed.error.issues, where, 'field')) problems.add(line, FIELD_HINT);
    return undefined;
  }
  const { value, default: fallback, firstOf, column, ...options } = withRawValues(parsed.data, rule);
  const has = (key: string) => Object.hasOwn(rule, key);
  const wrong =
    has('value') && (has('default') || firstOf || column)
      ? '"value" is the same for every record, so it takes no "default", "firstOf" or "column"'
      : firstOf && column
        ? 'give "firstOf" (several columns) or "column" (one), not both'
        : !has('value') && !has('default') && !firstOf && !column
          ? 'give "value", "default", "firstOf" or "column"'
          : has('value') && options.onInvalid !== undefined
            ? '"value" reads no cell, so it takes no "onInvalid"'
            : undefined;
  if (wrong) problems.add(`${where}: ${wrong}`, FIELD_HINT);
  const target = compiled(where, name, options, problems);
  if (!target || wrong) return undefined;
  return {
    ...target,
    sources: firstOf ?? (column ? [column] : []),
    value: has('value') ? { value } : undefined,
    fallback: has('default') ? { value: fallback } : undefined,
    omitInvalid: options.onInvalid === 'omit',
  };
}

function compiled(
  where: string,
  field: string,
  options: CellOptions,
  problems: Problems,
): { target: FieldTarget; path: string; read: CellReader } | undefined {
  const target = resolveFieldTarget(field, options.type);
  if (!target) {
    const suggestion = closestField(field);
    return problems.add(
      `${where}: unknown field "${field}"${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
      TARGET_HINT,
    );
  }
  try {
    return { target, path: targetPath(target), read: compileCellReader(target, options) };
  } catch (error) {
    if (error instanceof RuleError) return problems.add(`${where}: ${error.message}`, RULE_HINTS[error.key]);
    throw error;
  }
}
