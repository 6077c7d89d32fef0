/**
 * The --map file: a small declarative language from an export's columns (CSV headers, or dotted paths into a JSON
 * record) to upsert item fields, checked by its own schemas (mapping-schema.ts) and compiled once, here, into one
 * reader per rule. docs/mapping.md is its reference. Example:
 *   {"columns": {"Customer Id": "memberId", "Old Notes": null,
 *                "Create Date": {"field": "createdAt", "format": "yyyy-MM-dd HH:mm", "timeZone": "America/New_York"},
 *                "Status": {"field": "isActive", "values": {"active": true, "lapsed": false}}},
 *    "fields": {"loyaltyProgram": {"default": "basic"}, "email": {"firstOf": ["Work Email", "Home Email"]}}}
 */
import { readFile } from 'node:fs/promises';
import { jsonErrorPosition, jsonErrorReason } from '../json-position.js';
import { UsageError } from '../../errors.js';
import { columnRuleSchema, describeSchemaIssue, fieldRuleSchema, mappingFileSchema, type CellOptions } from './mapping-schema.js';
import { compileCellReader, RuleError, type CellReader } from './rules/cell-rule.js';
import { closestField, resolveTarget, targetPath, type Target } from './targets.js';

/** One field a column feeds (a column may feed several). */
export interface Feed {
  target: Target;
  path: string;
  read: CellReader;
  /** An empty cell is sent as null instead of leaving the field out. */
  emptyAsNull: boolean;
}

/** A `fields` entry: a constant, a default, or the first non-empty of several columns. */
export interface FieldRule {
  target: Target;
  path: string;
  /** Columns to take the first non-empty cell of (firstOf, or column); empty for value/default only. */
  sources: string[];
  read: CellReader;
  value?: { value: unknown };
  fallback?: { value: unknown };
}

export interface Mapping {
  /** Display name of the mapping file, for messages. */
  file: string;
  /** Column name (or JSON path) as written in the file → the fields it feeds; null drops the column. */
  columns: Map<string, Feed[] | null>;
  fields: FieldRule[];
  /** Everything in the file that decides an item, plus the time zone data's version: part of --changed-only's source key. */
  fingerprint: string;
}

export const FORMAT_HINT =
  'A mapping file looks like {"columns": {"E-mail Address": "email", "Internal Notes": null, ' +
  '"Signup": {"field": "createdAt", "format": "dd.MM.yyyy HH:mm", "timeZone": "Europe/Oslo"}}, "fields": {"isActive": {"value": true}}}; see docs/mapping.md';
const TARGET_HINT = 'Targets are upsert item fields (email), address.<field>, metadata.<key> or customProperties.<key>; null drops the column.';

export async function loadMappingFile(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'not found' : code === 'EISDIR' ? 'is a directory, not a file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new UsageError(`mapping file ${path}: ${reason}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const where = jsonErrorPosition(text, error);
    throw new UsageError(`mapping file ${path} is not valid JSON${where ? ` ${where}` : ''}: ${jsonErrorReason(error)}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  return parseMapping(json, path);
}

export function parseMapping(json: unknown, file: string): Mapping {
  const fail = (message: string, hint = FORMAT_HINT): never => {
    throw new UsageError(`mapping file ${file}: ${message}`, { code: 'mapping-file', hint });
  };
  const parsed = mappingFileSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) return fail(describeSchemaIssue(parsed.error.issues, '', 'file'));
  const columns = new Map<string, Feed[] | null>();
  for (const [column, rule] of Object.entries(parsed.data.columns ?? {})) {
    const where = `columns["${column}"]`;
    if (rule === null) columns.set(column, null);
    else columns.set(column, (Array.isArray(rule) ? rule : [rule]).map((one, i) => feedOf(one, Array.isArray(rule) ? `${where}[${i}]` : where, fail)));
  }
  const fields: FieldRule[] = [];
  for (const [name, rule] of Object.entries(parsed.data.fields ?? {})) fields.push(fieldRuleOf(name, rule, `fields["${name}"]`, fail));
  const fingerprint = JSON.stringify([parsed.data.columns ?? {}, parsed.data.fields ?? {}, process.versions.tz ?? '']);
  return { file, columns, fields, fingerprint };
}

type Fail = (message: string, hint?: string) => never;

function feedOf(rule: unknown, where: string, fail: Fail): Feed {
  if (typeof rule === 'string') return { ...compiled(where, rule, {}, fail), emptyAsNull: false };
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return fail(`${where}: expected a field name, null (drop the column), or a rule such as {"field": "createdAt", "format": "dd.MM.yyyy"}`);
  }
  const parsed = columnRuleSchema.safeParse(rule, { reportInput: true });
  if (!parsed.success) return fail(describeSchemaIssue(parsed.error.issues, where, 'column'));
  const { field, ...options } = parsed.data;
  return { ...compiled(where, field, options, fail), emptyAsNull: options.emptyAsNull === true };
}

function fieldRuleOf(name: string, rule: unknown, where: string, fail: Fail): FieldRule {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return fail(`${where}: expected a rule such as {"value": true}, {"default": "basic"} or {"firstOf": ["Work Email", "Home Email"]}`);
  }
  const parsed = fieldRuleSchema.safeParse(rule, { reportInput: true });
  if (!parsed.success) return fail(describeSchemaIssue(parsed.error.issues, where, 'field'));
  const { value, default: fallback, firstOf, column, ...options } = parsed.data;
  const has = (key: string) => Object.hasOwn(rule, key);
  if (has('value') && (has('default') || firstOf || column)) fail(`${where}: "value" is the same for every record, so it takes no "default", "firstOf" or "column"`);
  if (firstOf && column) fail(`${where}: give "firstOf" (several columns) or "column" (one), not both`);
  if (!has('value') && !has('default') && !firstOf && !column) fail(`${where}: give "value", "default", "firstOf" or "column"`);
  const sources = firstOf ?? (column ? [column] : []);
  return {
    ...compiled(where, name, options, fail),
    sources,
    value: has('value') ? { value } : undefined,
    fallback: has('default') ? { value: fallback } : undefined,
  };
}

function compiled(where: string, field: string, options: CellOptions, fail: Fail): { target: Target; path: string; read: CellReader } {
  const target = resolveTarget(field, options.type);
  if (!target) {
    const suggestion = closestField(field);
    return fail(`${where}: unknown field "${field}"${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, TARGET_HINT);
  }
  try {
    return { target, path: targetPath(target), read: compileCellReader(target, options) };
  } catch (error) {
    if (error instanceof RuleError) return fail(`${where}: ${error.message}`);
    throw error;
  }
}
