/**
 * Resolves a CSV header row to what each column feeds, once per file, before any row is read: --map rules first,
 * then the lenient names; then the mapping's `fields` to column indices. Unknown or clashing columns, and a
 * required field nothing gives, are usage errors naming the header and the closest field or headers.
 */
import { UsageError, type Problem } from '../../errors.js';
import { quotedHeader } from '../../io/csv-record-core.js';
import type { Feed, FieldRule, Mapping } from './mapping-file.js';
import { checkRequiredFields } from './required-fields.js';
import { compileCellReader } from './rules/cell-rule.js';
import { closestField, isObjectFieldName, normalizeName, resolveFieldTarget, targetPath } from './targets.js';

export interface ResolvedColumn {
  index: number;
  header: string;
  /** Empty: the column is not read (dropped by --map, unknown with --ignore-unknown-columns, or a rejects file's stage/error). */
  feeds: Feed[];
}

/** A `fields` rule with its columns found in the header (in firstOf order; those not in the file left out). */
export interface ResolvedField {
  rule: FieldRule;
  indices: number[];
}

export interface ColumnOptions {
  /** Input file name, for messages. */
  file: string;
  /** The header's line (blank lines may come before it), for messages about it; 1 when not given. */
  headerLine?: number;
  mapping?: Mapping;
  ignoreUnknownColumns?: boolean;
}

export interface ResolvedHeader {
  columns: ResolvedColumn[];
  fields: ResolvedField[];
  warnings: string[];
}

/** A rejects CSV ends with these two columns; reading it back ignores them, so a fixed file feeds back as is. */
export function endsWithRejectsColumns(headers: readonly string[]): boolean {
  const n = headers.length;
  return n >= 2 && normalizeName(headers[n - 2]!) === 'stage' && normalizeName(headers[n - 1]!) === 'error';
}

/** The index of each header by its lenient name (the first, when two normalise alike). */
function headerIndex(headers: readonly string[]): Map<string, number> {
  const byName = new Map<string, number>();
  headers.forEach((header, index) => {
    if (!byName.has(header)) byName.set(header, index);
    if (!byName.has(normalizeName(header))) byName.set(normalizeName(header), index);
  });
  return byName;
}
const findHeader = (byName: Map<string, number>, name: string) => byName.get(name) ?? byName.get(normalizeName(name));

export function resolveColumns(headers: readonly string[], options: ColumnOptions): ResolvedHeader {
  const { mapping, file } = options;
  const headerLine = options.headerLine ?? 1;
  const skipFrom = endsWithRejectsColumns(headers) ? headers.length - 2 : headers.length;
  const byName = headerIndex(headers.slice(0, skipFrom));
  const warnings: string[] = [];

  const ruled = new Map<number, Feed[] | null>();
  for (const [key, feeds] of mapping?.columns ?? []) {
    const index = findHeader(byName, key);
    if (index === undefined || ruled.has(index))
      warnings.push(`mapping file ${mapping!.file}: column "${key}" is not in ${file}'s header`);
    else ruled.set(index, feeds);
  }
  const fields: ResolvedField[] = [];
  const sourceColumns = new Set<number>();
  for (const rule of mapping?.fields ?? []) {
    const indices: number[] = [];
    for (const name of rule.sources) {
      const index = findHeader(byName, name);
      if (index === undefined)
        warnings.push(
          `mapping file ${mapping!.file}: fields["${rule.path}"]: column "${name}" is not in ${file}'s header`,
        );
      else indices.push(index), sourceColumns.add(index);
    }
    fields.push({ rule, indices });
  }

  const columns: ResolvedColumn[] = [];
  const unknown: ResolvedColumn[] = [];
  headers.forEach((header, index) => {
    const column: ResolvedColumn = { index, header, feeds: [] };
    columns.push(column);
    if (index >= skipFrom) return;
    if (ruled.has(index)) {
      column.feeds = ruled.get(index) ?? [];
      return;
    }
    const target = resolveFieldTarget(header);
    if (target)
      column.feeds = [
        { target, path: targetPath(target), read: compileCellReader(target), emptyAsNull: false, omitInvalid: false },
      ];
    else if (!sourceColumns.has(index)) unknown.push(column);
  });

  rejectClashes(columns, file, headerLine);
  // with a mapping, a missing required field is what is left to map; without one, the unknown columns come first
  if (mapping) checkRequiredFields(columns, fields, headers.slice(0, skipFrom), file, headerLine);
  if (unknown.length > 0 && !options.ignoreUnknownColumns) {
    const shown = unknown
      .slice(0, 5)
      .map((c) => `${quotedHeader(c.header)} (column ${c.index + 1}${suggestionFor(c.header)})`);
    if (unknown.length > shown.length) shown.push(`and ${unknown.length - shown.length} more`);
    const list = shown.join(', ');
    throw new UsageError(`${file} line ${headerLine}: unknown column${unknown.length > 1 ? 's' : ''} ${list}`, {
      code: 'unknown-column',
      hint: 'Map it with --map mapping.json ({"columns": {"<header>": "<field>"}}, null drops a column; `memberctl map init FILE` writes a starter), or skip unknown columns with --ignore-unknown-columns.',
    });
  }
  if (!mapping) checkRequiredFields(columns, fields, headers.slice(0, skipFrom), file, headerLine);
  const ignored = unknown.map(
    (c) => `${file}: ignoring unknown column ${quotedHeader(c.header)} (column ${c.index + 1})`,
  );
  return { columns, fields, warnings: [...ignored, ...warnings] };
}

function suggestionFor(header: string): string {
  if (isObjectFieldName(header))
    return `: ${normalizeName(header) === 'address' ? 'use address.<field>, e.g. address.city' : `use ${header}.<key>`}`;
  const suggestion = closestField(header);
  return suggestion ? `: did you mean ${suggestion}?` : '';
}

/**
 * Two columns for one field are refused. A column beside a `fields` rule for the same field is not: the column's
 * cell wins when it has a value and the rule fills in otherwise (issue 17's own example maps Status and sets
 * isActive's value; docs/decisions.md).
 */
function rejectClashes(columns: ResolvedColumn[], file: string, headerLine: number): void {
  const byPath = new Map<string, ResolvedColumn>();
  const hint =
    'Drop one of them with --map mapping.json ({"columns": {"<header>": null}}), or take the first non-empty with {"fields": {"<field>": {"firstOf": ["<header>", "<header>"]}}}.';
  const problems: Problem[] = [];
  for (const column of columns) {
    for (const { path } of column.feeds) {
      const earlier = byPath.get(path);
      if (earlier && earlier !== column) {
        problems.push({
          message: `${file} line ${headerLine}: columns "${earlier.header}" (column ${earlier.index + 1}) and "${column.header}" (column ${column.index + 1}) both map to ${path}`,
          hint,
        });
      } else byPath.set(path, column);
    }
  }
  // every clash at once: each is fixed in the same mapping file
  const [first, ...rest] = problems;
  if (!first) return;
  const more = rest.length > 0 ? ` (and ${rest.length} more clash${rest.length === 1 ? '' : 'es'})` : '';
  throw new UsageError(`${first.message}${more}`, { code: 'duplicate-column', hint, problems });
}
