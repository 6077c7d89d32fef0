/**
 * Resolves a CSV header row to targets, once per file, before any row is read: --map rules first, then the
 * lenient names. Unknown or clashing columns are a usage error naming the header and the closest field.
 */
import { UsageError } from '../../errors.js';
import type { Mapping } from './mapping-file.js';
import { closestField, isObjectFieldName, normalizeName, resolveTarget, targetPath, type Target } from './targets.js';

export interface ResolvedColumn {
  index: number;
  header: string;
  /** undefined: the column is not read (dropped by --map, unknown with --ignore-unknown-columns, or a rejects file's stage/error). */
  target?: Target;
}

export interface ColumnOptions {
  /** Input file name, for messages. */
  file: string;
  mapping?: Mapping;
  ignoreUnknownColumns?: boolean;
}

export interface ResolvedHeader {
  columns: ResolvedColumn[];
  warnings: string[];
}

/** A rejects CSV ends with these two columns; reading it back ignores them, so a fixed file feeds back as is. */
export function endsWithRejectsColumns(headers: readonly string[]): boolean {
  const n = headers.length;
  return n >= 2 && normalizeName(headers[n - 2]!) === 'stage' && normalizeName(headers[n - 1]!) === 'error';
}

export function resolveColumns(headers: readonly string[], options: ColumnOptions): ResolvedHeader {
  const { mapping, file } = options;
  const lenientRules = new Map<string, string>();
  for (const key of mapping?.columns.keys() ?? []) lenientRules.set(normalizeName(key), key);
  const usedRules = new Set<string>();
  const skipFrom = endsWithRejectsColumns(headers) ? headers.length - 2 : headers.length;

  const columns: ResolvedColumn[] = [];
  const unknown: ResolvedColumn[] = [];
  headers.forEach((header, index) => {
    const column: ResolvedColumn = { index, header };
    columns.push(column);
    if (index >= skipFrom) return;
    const ruleKey = mapping?.columns.has(header) ? header : lenientRules.get(normalizeName(header));
    if (ruleKey !== undefined && mapping) {
      usedRules.add(ruleKey);
      column.target = mapping.columns.get(ruleKey) ?? undefined;
      return;
    }
    column.target = resolveTarget(header);
    if (!column.target) unknown.push(column);
  });

  rejectClashes(columns, file);
  if (unknown.length > 0 && !options.ignoreUnknownColumns) {
    const shown = unknown.slice(0, 5).map((c) => `"${c.header}" (column ${c.index + 1}${suggestionFor(c.header)})`);
    if (unknown.length > shown.length) shown.push(`and ${unknown.length - shown.length} more`);
    const list = shown.join(', ');
    throw new UsageError(`${file} line 1: unknown column${unknown.length > 1 ? 's' : ''} ${list}`, {
      code: 'unknown-column',
      hint: 'Map it with --map mapping.json ({"columns": {"<header>": "<field>"}}, null drops a column), or skip unknown columns with --ignore-unknown-columns.',
    });
  }
  const warnings = unknown.map((c) => `${file}: ignoring unknown column "${c.header}" (column ${c.index + 1})`);
  for (const key of mapping?.columns.keys() ?? []) {
    if (!usedRules.has(key)) warnings.push(`mapping file ${mapping!.file}: column "${key}" is not in ${file}'s header`);
  }
  return { columns, warnings };
}

function suggestionFor(header: string): string {
  if (isObjectFieldName(header)) return `: ${normalizeName(header) === 'address' ? 'use address.<field>, e.g. address.city' : `use ${header}.<key>`}`;
  const suggestion = closestField(header);
  return suggestion ? `: did you mean ${suggestion}?` : '';
}

function rejectClashes(columns: ResolvedColumn[], file: string): void {
  const byPath = new Map<string, ResolvedColumn>();
  for (const column of columns) {
    if (!column.target) continue;
    const path = targetPath(column.target);
    const earlier = byPath.get(path);
    if (earlier) {
      throw new UsageError(
        `${file} line 1: columns "${earlier.header}" (column ${earlier.index + 1}) and "${column.header}" (column ${column.index + 1}) both map to ${path}`,
        { code: 'duplicate-column', hint: 'Drop one of them with --map mapping.json ({"columns": {"<header>": null}}).' },
      );
    }
    byPath.set(path, column);
  }
}
