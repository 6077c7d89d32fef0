/**
 * The CSV hot path: per row, only index lookups and the setters chosen once from the header.
 * The item is built directly (no intermediate map); metadata and customProperties maps are plain objects, or have
 * no prototype when a key such as "__proto__" would otherwise not be plain data (item-paths.ts, MapKind).
 */
import { hash } from 'node:crypto';
import type { Candidate, RecordIssue } from '../candidate.js';
import { packageVersion } from '../../version.js';
import type { SourceRecord } from '../../io/source.js';
import { CellProblem } from './coerce.js';
import { resolveColumns, type ColumnOptions, type ResolvedColumn } from './csv-columns.js';
import { assignerFor, getterFor, mapKindFor, type Assign, type Item } from './item-paths.js';
import { NOT_GIVEN, type CellReader } from './rules/cell-rule.js';
import { checkItem } from './validate-item.js';
import { ADDRESS_FIELDS, MEMBER_FIELDS, memberUpsertItemSchema, type MemberUpsertItem } from '../../schemas/member.js';
import { isMemberItem } from '../../schemas/member-check.js';
import type { FieldTarget } from './targets.js';
import { sortByFieldOrder } from './issues.js';
import { OmitRules } from './omit-invalid.js';

interface Plan {
  index: number;
  path: string;
  /** ` (column "E-mail")` when the header differs from the field, for messages. */
  named: string;
  read: CellReader;
  assign: Assign;
  emptyAsNull: boolean;
}

interface FieldPlan {
  path: string;
  indices: number[];
  headers: string[];
  read: CellReader;
  assign: Assign;
  get: (item: Item) => unknown;
  value?: { value: unknown };
  fallback?: { value: unknown };
  /** A column feeds this field too: the rule applies only when that cell gave nothing (docs/mapping.md#fields). */
  besideColumn: boolean;
}

export interface CsvMapperOptions extends ColumnOptions {
  /** A cell exactly equal to this (after trimming) is JSON null, which clears the field. Off by default. '' is emptyAsNull. */
  nullToken?: string;
  /**
   * --empty-as-null: an empty cell is JSON null (clears the field on the server) instead of "not given". Applies to
   * the fields that take null; an empty memberId, isActive, createdAt or isEmployee stays "not given". A mapping's
   * column rule may ask it for one column ("emptyAsNull": true).
   */
  emptyAsNull?: boolean;
}

export interface CsvMapper {
  columns: ResolvedColumn[];
  warnings: string[];
  toCandidate(source: SourceRecord): Candidate;
  /** The item as the mapping builds it, before the schema sees it, and the cells' problems (tests compare it with the sandbox). */
  build(
    cells: readonly (string | undefined)[],
    quotedNullTokens?: readonly number[],
  ): { item: Record<string, unknown>; problems?: RecordIssue[] };
  /** The memberId of a row, even one the reader could not take whole (too many cells, bad bytes). */
  memberIdOf(cells: readonly unknown[]): string | undefined;
  /**
   * A row's cells as read, prefixed with a digest of everything else that decides its item: this memberctl's
   * version, which column feeds which field as what type, the whole mapping file, the null token. Equal keys give
   * equal items, so --changed-only can tell a row is unchanged without mapping, validating or serialising it.
   */
  sourceKey(cells: readonly unknown[], quotedNullTokens?: readonly number[]): string;
}

const named = (header: string, path: string) => (header === path ? '' : ` (column "${header}")`);

export function buildCsvMapper(headers: readonly string[], options: CsvMapperOptions): CsvMapper {
  const { columns, fields, warnings } = resolveColumns(headers, options);
  // `--null-token ''` means exactly what it says: an empty cell is null
  const emptyAsNull = options.emptyAsNull === true || options.nullToken === '';
  const nullToken = options.nullToken === '' ? undefined : options.nullToken;
  const maps = mapKindFor([
    ...columns.flatMap((column) => column.feeds.map((feed) => feed.target)),
    ...fields.map(({ rule }) => rule.target),
  ]);
  const plans: Plan[] = [];
  const headerOfPath = new Map<string, string>();
  for (const column of columns) {
    for (const feed of column.feeds) {
      plans.push({
        index: column.index,
        path: feed.path,
        named: named(column.header, feed.path),
        read: feed.read,
        assign: assignerFor(feed.target, maps),
        emptyAsNull: feed.emptyAsNull || (emptyAsNull && takesNull(feed.target)),
      });
      if (column.header !== feed.path) headerOfPath.set(feed.path, column.header);
    }
  }
  const fieldPlans: FieldPlan[] = fields.map(({ rule, indices }) => ({
    path: rule.path,
    indices,
    headers: indices.map((i) => headers[i]!),
    read: rule.read,
    assign: assignerFor(rule.target, maps),
    get: getterFor(rule.target),
    value: rule.value,
    fallback: rule.fallback,
    besideColumn: plans.some((plan) => plan.path === rule.path),
  }));
  // The item is filled in the schema's order, so that a valid one is already what zod's parse would give back (its
  // keys in the schema's order) and isMemberItem can stand for zod: zod copied the item, and its address, per row.
  // A `fields` rule fills in after the columns, out of that order: then zod parses as before.
  const orderedPlans = inSchemaOrder(plans);
  const checkInPlace = fieldPlans.length === 0;
  const omit = new OmitRules([
    ...columns.flatMap((column) => column.feeds.filter((feed) => feed.omitInvalid)),
    ...fields.map(({ rule }) => rule).filter((rule) => rule.omitInvalid),
  ]);

  const fill = (
    cells: readonly (string | undefined)[],
    item: Item,
    rowPlans: readonly Plan[],
    rowFields: readonly FieldPlan[],
    quotedNullTokens?: readonly number[],
  ) => fillItem(cells, item, rowPlans, rowFields, nullToken, quotedNullTokens);

  function toCandidate(source: SourceRecord): Candidate {
    const { record, line, quotedNullTokens } = source;
    const cells = source.raw as readonly (string | undefined)[];
    const item: Item = {};
    let problems = fill(cells, item, orderedPlans, fieldPlans, quotedNullTokens);
    const memberId = typeof item.memberId === 'string' ? item.memberId : undefined;
    if (!problems && checkInPlace && isMemberItem(item))
      return { record, line, memberId, raw: cells, valid: true, item: item as MemberUpsertItem };
    // the cells' problems in the columns' order, as they were always listed (rare: read again)
    if (problems) problems = fill(cells, {}, plans, fieldPlans, quotedNullTokens);
    const check = checkItem(item, 'csv');
    if (check.ok && !problems) return { record, line, memberId, raw: cells, valid: true, item: check.item };
    const issues = mergeIssues(problems, check.ok ? [] : check.issues);
    for (const issue of issues) {
      const header = headerOfPath.get(issue.path);
      if (header !== undefined && !issue.message.endsWith(`(column "${header}")`))
        issue.message += ` (column "${header}")`;
    }
    const omitted = omit.empty ? undefined : omit.apply(item, issues, 'csv');
    if (omitted) return { record, line, memberId, raw: cells, valid: true, ...omitted };
    return { record, line, memberId, raw: cells, valid: false, issues };
  }

  const idPlans = plans.filter((plan) => plan.path === 'memberId');
  const idFields = fieldPlans.filter((field) => field.path === 'memberId');
  function memberIdOf(cells: readonly unknown[]): string | undefined {
    const item: Item = {};
    fill(cells as readonly (string | undefined)[], item, idPlans, idFields);
    return typeof item.memberId === 'string' && item.memberId.trim() !== '' ? item.memberId : undefined;
  }

  const plan = JSON.stringify([
    packageVersion(),
    nullToken ?? null,
    emptyAsNull, // it changes the item of a row with an empty cell
    columns.map((c) => [c.index, c.feeds.map((f) => f.target)]),
    fields.map((f) => [f.rule.path, f.indices]),
    options.mapping?.fingerprint ?? null,
  ]);
  const planDigest = hash('sha256', plan, 'base64');
  // The cells joined by NUL (a third of JSON.stringify's cost, on every row of a --changed-only pass): unambiguous
  // as long as no cell holds a NUL itself, else the JSON form; a tag tells the two forms apart.
  // a quoted null token is text, an unquoted one null: the same cells, another item, so another key
  const sourceKey = (cells: readonly unknown[], quotedNullTokens?: readonly number[]) => {
    const digest = quotedNullTokens ? `${planDigest}q${quotedNullTokens.join(',')}` : planDigest;
    const joined = cells.join('\0');
    return nulCount(joined) === cells.length - 1 ? `${digest}c${joined}` : `${digest}j${JSON.stringify(cells)}`;
  };

  const build = (cells: readonly (string | undefined)[], quotedNullTokens?: readonly number[]) => {
    const item: Item = {};
    return { item, problems: fill(cells, item, plans, fieldPlans, quotedNullTokens) };
  };
  return { columns, warnings, toCandidate, build, memberIdOf, sourceKey };
}

/**
 * The plans in the order of the fields they fill in the item: the schema's fields, an address's in the address's
 * order; metadata and customProperties keys keep the columns' order (their maps are sent as they are filled).
 */
function inSchemaOrder(plans: readonly Plan[]): Plan[] {
  const rank = (plan: Plan) => {
    const [field, key] = plan.path.split('.', 2) as [string, string | undefined];
    const at = MEMBER_FIELDS.indexOf(field as (typeof MEMBER_FIELDS)[number]);
    return field === 'address' ? at + (ADDRESS_FIELDS.indexOf(key as (typeof ADDRESS_FIELDS)[number]) + 1) / 8 : at;
  };
  return plans
    .map((plan, index) => ({ plan, index, rank: rank(plan) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ plan }) => plan);
}

/** Whether the API takes null for the target (it clears the field): not for memberId, isActive, createdAt, isEmployee. */
function takesNull(target: FieldTarget): boolean {
  if (target.kind !== 'field') return true;
  const shape = memberUpsertItemSchema.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>;
  return shape[target.field]?.safeParse(null).success ?? false;
}

/**
 * Fills `item` from the row's cells: the columns' plans, then the `fields` rules; returns the cells' problems
 * (undefined when none). A cell equal to the null token is null unless the reader saw it quoted (`quotedNullTokens`).
 */
function fillItem(
  cells: readonly (string | undefined)[],
  item: Item,
  rowPlans: readonly Plan[],
  rowFields: readonly FieldPlan[],
  nullToken: string | undefined,
  quotedNullTokens: readonly number[] | undefined,
): RecordIssue[] | undefined {
  let problems: RecordIssue[] | undefined;
  for (let i = 0; i < rowPlans.length; i++) {
    const plan = rowPlans[i]!;
    const raw = cells[plan.index];
    if (raw === undefined) continue;
    const cell = raw.trim();
    if (cell === '') {
      if (plan.emptyAsNull) plan.assign(item, null);
      continue;
    }
    if (cell === nullToken && !quotedNullTokens?.includes(plan.index)) {
      plan.assign(item, null);
      continue;
    }
    const value = plan.read(cell);
    if (value === NOT_GIVEN) {
      if (plan.emptyAsNull) plan.assign(item, null);
      continue;
    }
    if (value instanceof CellProblem)
      (problems ??= []).push({ path: plan.path, message: value.message + plan.named, rule: value.rule });
    else plan.assign(item, value);
  }
  for (let i = 0; i < rowFields.length; i++) {
    const field = rowFields[i]!;
    if (field.besideColumn && field.get(item) !== undefined) continue;
    if (field.value) {
      field.assign(item, field.value.value);
      continue;
    }
    for (let k = 0; k < field.indices.length; k++) {
      const cell = cells[field.indices[k]!]?.trim();
      if (cell === undefined || cell === '') continue;
      const index = field.indices[k]!;
      const value = cell === nullToken && !quotedNullTokens?.includes(index) ? null : field.read(cell);
      if (value === NOT_GIVEN) continue;
      if (value instanceof CellProblem)
        (problems ??= []).push({
          path: field.path,
          message: `${value.message} (column "${field.headers[k]}")`,
          rule: value.rule,
        });
      else field.assign(item, value);
      break;
    }
    if (field.fallback && field.get(item) === undefined) field.assign(item, field.fallback.value);
  }
  return problems;
}

function nulCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\0'); at !== -1; at = text.indexOf('\0', at + 1)) count++;
  return count;
}

/** A cell that could not be read leaves its field out; the schema's "required" for that field would only repeat it. */
function mergeIssues(problems: RecordIssue[] | undefined, schemaIssues: RecordIssue[]): RecordIssue[] {
  if (!problems) return schemaIssues;
  const seen = new Set(problems.map((p) => p.path));
  return sortByFieldOrder([...problems, ...schemaIssues.filter((issue) => !seen.has(issue.path))]);
}
