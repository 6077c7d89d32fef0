/**
 * The CSV hot path: per row, only index lookups and the setters chosen once from the header.
 * The item is built directly (no intermediate map); metadata and customProperties maps have no prototype,
 * so keys such as "__proto__" are plain data.
 */
import { hash } from 'node:crypto';
import type { Candidate, RecordIssue } from '../candidate.js';
import { packageVersion } from '../../version.js';
import type { SourceRecord } from '../../io/source.js';
import { coerceCustom, Problem, toBoolean, toDateTime } from './coerce.js';
import { resolveColumns, type ColumnOptions, type ResolvedColumn } from './csv-columns.js';
import { targetPath, type Target } from './targets.js';
import { checkItem } from './validate-item.js';
import { memberUpsertItemSchema } from '../../schemas/member.js';
import { sortByFieldOrder } from './issues.js';

type Item = Record<string, unknown>;
type Setter = (item: Item, cell: string) => Problem | undefined;

interface Plan {
  index: number;
  path: string;
  set: Setter;
  setNull: (item: Item) => void;
  /** An empty cell clears the field (--empty-as-null, for a field that takes null). */
  emptyAsNull: boolean;
}

export interface CsvMapperOptions extends ColumnOptions {
  /** A cell exactly equal to this (after trimming) is JSON null, which clears the field. Off by default. '' is emptyAsNull. */
  nullToken?: string;
  /**
   * --empty-as-null: an empty cell is JSON null (clears the field on the server) instead of "not given". Applies to
   * the fields that take null; an empty memberId, isActive, createdAt or isEmployee stays "not given".
   */
  emptyAsNull?: boolean;
}

export interface CsvMapper {
  columns: ResolvedColumn[];
  warnings: string[];
  toCandidate(source: SourceRecord): Candidate;
  /** The memberId cell of a row, even one the reader could not take whole (too many cells, bad bytes). */
  memberIdOf(cells: readonly unknown[]): string | undefined;
  /**
   * A row's cells as read, prefixed with a digest of everything else that decides its item: this memberctl's
   * version, which column feeds which field as what type, the null token. Equal keys give equal items, so
   * --changed-only can tell a row is unchanged without mapping, validating or serialising it.
   */
  sourceKey(cells: readonly unknown[]): string;
}

export function buildCsvMapper(headers: readonly string[], options: CsvMapperOptions): CsvMapper {
  const { columns, warnings } = resolveColumns(headers, options);
  // `--null-token ''` means exactly what it says: an empty cell is null
  const emptyAsNull = options.emptyAsNull === true || options.nullToken === '';
  const nullToken = options.nullToken === '' ? undefined : options.nullToken;
  const plans: Plan[] = [];
  const headerOfPath = new Map<string, string>();
  for (const column of columns) {
    if (!column.target) continue;
    const path = targetPath(column.target);
    plans.push({ index: column.index, path, ...settersFor(column.target), emptyAsNull: emptyAsNull && takesNull(column.target) });
    if (column.header !== path) headerOfPath.set(path, column.header);
  }

  function toCandidate(source: SourceRecord): Candidate {
    const { record, line } = source;
    const cells = source.raw as readonly (string | undefined)[];
    const item: Item = {};
    let problems: RecordIssue[] | undefined;
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i]!;
      const raw = cells[plan.index];
      if (raw === undefined) continue;
      const cell = raw.trim();
      if (cell === '') {
        if (plan.emptyAsNull) plan.setNull(item);
        continue;
      }
      if (cell === nullToken) {
        plan.setNull(item);
        continue;
      }
      const problem = plan.set(item, cell);
      if (problem) (problems ??= []).push({ path: plan.path, message: problem.message, rule: problem.rule });
    }
    const memberId = typeof item.memberId === 'string' ? item.memberId : undefined;
    const check = checkItem(item, 'csv');
    if (check.ok && !problems) return { record, line, memberId, raw: cells, valid: true, item: check.item };
    const issues = mergeIssues(problems, check.ok ? [] : check.issues);
    for (const issue of issues) {
      const header = headerOfPath.get(issue.path);
      if (header !== undefined) issue.message += ` (column "${header}")`;
    }
    return { record, line, memberId, raw: cells, valid: false, issues };
  }

  const idColumn = plans.find((plan) => plan.path === 'memberId')?.index;
  function memberIdOf(cells: readonly unknown[]): string | undefined {
    const cell = idColumn === undefined ? undefined : cells[idColumn];
    return typeof cell === 'string' && cell.trim() !== '' ? cell.trim() : undefined;
  }

  // (--empty-as-null changes the item of a row with an empty cell, so it is part of the key)
  const plan = JSON.stringify([packageVersion(), nullToken ?? null, emptyAsNull, columns.filter((c) => c.target).map((c) => [c.index, c.target])]);
  const planDigest = hash('sha256', plan, 'base64');
  // The cells joined by NUL (a third of JSON.stringify's cost, on every row of a --changed-only pass): unambiguous
  // as long as no cell holds a NUL itself, else the JSON form; a tag tells the two forms apart.
  const sourceKey = (cells: readonly unknown[]) => {
    const joined = cells.join('\0');
    return nulCount(joined) === cells.length - 1 ? `${planDigest}c${joined}` : `${planDigest}j${JSON.stringify(cells)}`;
  };

  return { columns, warnings, toCandidate, memberIdOf, sourceKey };
}

/** Whether the API takes null for the target (it clears the field): not for memberId, isActive, createdAt, isEmployee. */
function takesNull(target: Target): boolean {
  if (target.kind !== 'field') return true;
  const shape = memberUpsertItemSchema.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>;
  return shape[target.field]?.safeParse(null).success ?? false;
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

function settersFor(target: Target): Pick<Plan, 'set' | 'setNull'> {
  switch (target.kind) {
    case 'field': {
      const field = target.field;
      const setNull = (item: Item) => void (item[field] = null);
      if (target.type === 'boolean') {
        return {
          setNull,
          set: (item, cell) => {
            const value = toBoolean(cell);
            if (value instanceof Problem) return value;
            item[field] = value;
          },
        };
      }
      if (target.type === 'date') {
        return {
          setNull,
          set: (item, cell) => {
            const value = toDateTime(cell);
            if (value instanceof Problem) return value;
            item[field] = value;
          },
        };
      }
      return { setNull, set: (item, cell) => void (item[field] = cell) };
    }
    case 'address': {
      const field = target.field;
      const address = (item: Item) => (item.address ??= {}) as Item;
      return { setNull: (item) => void (address(item)[field] = null), set: (item, cell) => void (address(item)[field] = cell) };
    }
    case 'metadata': {
      const key = target.key;
      const metadata = (item: Item) => (item.metadata ??= Object.create(null)) as Item;
      return { setNull: (item) => void (metadata(item)[key] = null), set: (item, cell) => void (metadata(item)[key] = cell) };
    }
    case 'customProperties': {
      const { key, type } = target;
      const custom = (item: Item) => (item.customProperties ??= Object.create(null)) as Item;
      return {
        setNull: (item) => void (custom(item)[key] = null),
        set: (item, cell) => {
          const value = coerceCustom(cell, type);
          if (value instanceof Problem) return value;
          custom(item)[key] = value;
        },
      };
    }
  }
}
