/**
 * A CSV header's mapping plans, chosen once from the header, and the per-row fill they drive: per row, only index
 * lookups and the setters. The item is built directly (no intermediate map); metadata and customProperties maps
 * are plain objects, or have no prototype when a key such as "__proto__" would otherwise not be plain data
 * (item-paths.ts, MapKind). No zod here: `plainItem` checks an item with the compiled check (member-check.ts), and
 * the CSV worker maps rows with these plans alone (import/row-encoder.ts); csv-mapper.ts adds zod's messages for
 * the rows `plainItem` does not take.
 */
import type { RecordIssue } from '../candidate.js';
import { CellProblem } from './coerce.js';
import { resolveColumns, type ColumnOptions, type ResolvedColumn, type ResolvedField } from './csv-columns.js';
import { assignerFor, getterFor, mapKindFor, type Assign, type Item } from './item-paths.js';
import { NOT_GIVEN, type CellReader } from './rules/cell-rule.js';
import { ADDRESS_FIELDS, MEMBER_FIELDS, NULLABLE_FIELDS } from '../../schemas/member-fields.js';
import { isMemberItem } from '../../schemas/member-check.js';
import type { MemberUpsertItem } from '../../schemas/member.js';
import type { FieldTarget } from './targets.js';

export interface Plan {
  index: number;
  path: string;
  /** ` (column "E-mail")` when the header differs from the field, for messages. */
  named: string;
  read: CellReader;
  assign: Assign;
  emptyAsNull: boolean;
}

export interface FieldPlan {
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

export interface CsvPlans {
  columns: ResolvedColumn[];
  fields: ResolvedField[];
  warnings: string[];
  /** The columns' plans in the columns' order (the order the cells' problems are listed in). */
  plans: Plan[];
  /** The same plans in the order of the item's fields (see inSchemaOrder). */
  orderedPlans: Plan[];
  fieldPlans: FieldPlan[];
  /** No `fields` rule: a row's item filled in the schema's order may be checked by isMemberItem in place of zod. */
  checkInPlace: boolean;
  /** field path → its column's header, where the two differ. */
  headerOfPath: Map<string, string>;
  nullToken: string | undefined;
  emptyAsNull: boolean;
  /** Fills `item` from the row's cells with these plans; returns the cells' problems (undefined when none). */
  fill(
    cells: readonly (string | undefined)[],
    item: Item,
    rowPlans: readonly Plan[],
    rowFields: readonly FieldPlan[],
    quotedNullTokens?: readonly number[],
  ): RecordIssue[] | undefined;
  /**
   * `item` filled from the row in the schema's order: true when it is plainly valid, i.e. no cell had a problem and
   * the compiled check takes it as zod would, unchanged (false says nothing: csv-mapper.ts asks zod then).
   */
  plainItem(
    cells: readonly (string | undefined)[],
    item: Item,
    quotedNullTokens?: readonly number[],
  ): item is MemberUpsertItem;
}

const named = (header: string, path: string) => (header === path ? '' : ` (column "${header}")`);

export function compileCsvPlans(headers: readonly string[], options: CsvMapperOptions): CsvPlans {
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
  const fill: CsvPlans['fill'] = (cells, item, rowPlans, rowFields, quotedNullTokens) =>
    fillItem(cells, item, rowPlans, rowFields, nullToken, quotedNullTokens);
  const plainItem = (cells: readonly (string | undefined)[], item: Item, quotedNullTokens?: readonly number[]) =>
    fill(cells, item, orderedPlans, fieldPlans, quotedNullTokens) === undefined && checkInPlace && isMemberItem(item);
  return {
    columns,
    fields,
    warnings,
    plans,
    orderedPlans,
    fieldPlans,
    checkInPlace,
    headerOfPath,
    nullToken,
    emptyAsNull,
    fill,
    plainItem: plainItem as CsvPlans['plainItem'],
  };
}

/**
 * The plans in the order of the fields they fill in the item: the schema's fields, an address's in the address's
 * order; metadata and customProperties keys keep the columns' order (their maps are sent as they are filled).
 */
export function inSchemaOrder(plans: readonly Plan[]): Plan[] {
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
  return target.kind !== 'field' || NULLABLE_FIELDS.has(target.field);
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
