/**
 * The CSV hot path, from a row to its candidate: the header's plans (csv-plans.ts) fill the item; a plainly valid
 * one is checked by the compiled check alone, any other by zod, which explains what is wrong (validate-item.ts),
 * and the --map file's "onInvalid": "omit" rules apply.
 */
import { hash } from 'node:crypto';
import type { Candidate, RecordIssue } from '../candidate.js';
import { packageVersion } from '../../version.js';
import type { SourceRecord } from '../../io/source.js';
import type { ResolvedColumn } from './csv-columns.js';
import { compileCsvPlans, type CsvMapperOptions } from './csv-plans.js';
import type { Item } from './item-paths.js';
import { checkItem } from './validate-item.js';
import type { MemberUpsertItem } from '../../schemas/member.js';
import { isMemberItem } from '../../schemas/member-check.js';
import { sortByFieldOrder } from './issues.js';
import { OmitRules } from './omit-invalid.js';

export type { CsvMapperOptions } from './csv-plans.js';

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

export function buildCsvMapper(headers: readonly string[], options: CsvMapperOptions): CsvMapper {
  const {
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
  } = compileCsvPlans(headers, options);
  const omit = new OmitRules([
    ...columns.flatMap((column) => column.feeds.filter((feed) => feed.omitInvalid)),
    ...fields.map(({ rule }) => rule).filter((rule) => rule.omitInvalid),
  ]);

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
