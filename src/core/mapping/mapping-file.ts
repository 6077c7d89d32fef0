/**
 * The --map file: which CSV column goes to which field, which columns to drop, and how to read
 * customProperties cells. Example:
 *   {"columns": {"E-mail Address": "email", "Internal Notes": null,
 *                "Score": {"field": "customProperties.score", "type": "number"}}}
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { resolveTarget, closestField, type CellType, type Target } from './targets.js';

const columnSchema = z.union([
  z.string().min(1),
  z.null(),
  z.strictObject({
    field: z.string().min(1),
    type: z.enum(['string', 'number', 'boolean', 'json']).optional(),
  }),
]);

const mappingFileSchema = z.strictObject({
  description: z.string().optional(),
  columns: z.record(z.string().min(1), columnSchema),
});

/** A column's fate: a target, or dropped (null in the mapping file). */
export type ColumnRule = Target | null;

export interface Mapping {
  /** Display name of the mapping file, for messages. */
  file: string;
  /** Column name as written in the file → rule. */
  columns: Map<string, ColumnRule>;
}

const FORMAT_HINT =
  'A mapping file looks like {"columns": {"E-mail Address": "email", "Internal Notes": null, ' +
  '"Score": {"field": "customProperties.score", "type": "number"}}}';

export async function loadMappingFile(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message;
    throw new UsageError(`mapping file ${path}: ${reason}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`mapping file ${path} is not valid JSON: ${(error as Error).message}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  return parseMapping(json, path);
}

export function parseMapping(json: unknown, file: string): Mapping {
  const parsed = mappingFileSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
    const where = issue.path.length ? issuePath(issue.path) : '(top level)';
    const what =
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`
        : issue.code === 'invalid_type' && issue.input === undefined
          ? 'missing'
          : issue.code === 'invalid_union'
            ? 'expected a field name, null (drop the column), or {"field": "customProperties.<key>", "type": "string|number|boolean|json"}'
            : issue.message;
    throw new UsageError(`mapping file ${file}: ${where}: ${what}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  const columns = new Map<string, ColumnRule>();
  for (const [column, rule] of Object.entries(parsed.data.columns)) {
    if (rule === null) {
      columns.set(column, null);
      continue;
    }
    const field = typeof rule === 'string' ? rule : rule.field;
    const type: CellType | undefined = typeof rule === 'string' ? undefined : rule.type;
    const target = resolveTarget(field, type);
    if (!target) {
      const suggestion = closestField(field);
      throw new UsageError(
        `mapping file ${file}: columns["${column}"]: unknown field "${field}"${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
        { code: 'mapping-file', hint: 'Targets are upsert item fields (email), address.<field>, metadata.<key> or customProperties.<key>; null drops the column.' },
      );
    }
    if (type !== undefined && target.kind !== 'customProperties') {
      throw new UsageError(`mapping file ${file}: columns["${column}"]: "type" applies only to customProperties.<key> targets`, {
        code: 'mapping-file',
        hint: 'Member fields have fixed types (booleans and dates are read from text automatically).',
      });
    }
    columns.set(column, target);
  }
  return { file, columns };
}

function issuePath(path: PropertyKey[]): string {
  return path.map((p, i) => (i === 0 ? String(p) : `["${String(p)}"]`)).join('').replace(/\["(type|field)"\]$/, '.$1');
}
