/** Turns zod's issues into one human message per problem, with the field path in item terms. */
import type { z } from 'zod';
import type { RecordIssue } from '../candidate.js';
import { ADDRESS_FIELDS, MEMBER_FIELDS } from '../../schemas/member-fields.js';
import { closestName } from './targets.js';
import { CSV_DATE_EXPECTED } from './coerce.js';
import { quoteCell, shortened } from './quote-cell.js';

export type InputKind = 'csv' | 'json';

/** `string "yes"`, `number 5`, `null`, `array`, ...: short, for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return quoteCell(value);
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

function gotValue(value: unknown): string {
  return typeof value === 'string' ? `string ${describeValue(value)}` : describeValue(value);
}

/** `address.zipCode`; a key longer than 64 characters (JSON keys are the input's) is shown cut, with its length. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((key) => shortened(String(key))).join('.');
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const DATE_EXAMPLE = 'an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z)';

export function toRecordIssues(issues: readonly z.core.$ZodIssue[], kind: InputKind): RecordIssue[] {
  const out: RecordIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = issue.path.length === 0 ? MEMBER_FIELDS : issue.path[0] === 'address' ? ADDRESS_FIELDS : [];
      for (const key of issue.keys) {
        // a key no field has a name that long: no did-you-mean, and the path shows it cut
        const suggestion = key.length > 64 ? undefined : closestName(key, known);
        out.push({
          path: formatPath([...issue.path, key]),
          message: `unknown property${suggestion ? ` (did you mean ${suggestion}?)` : ''}: the API's upsert item has no such field`,
          rule: 'unknown property',
        });
      }
      continue;
    }
    out.push({ path: formatPath(issue.path), ...describeIssue(issue, kind) });
  }
  return sortByFieldOrder(out);
}

const FIELD_ORDER = new Map<string, number>(MEMBER_FIELDS.map((f, i) => [f, i]));

/** Issues in the API's field order (zod's order follows its own evaluation), unknown properties last. */
export function sortByFieldOrder(issues: RecordIssue[]): RecordIssue[] {
  const rank = (issue: RecordIssue) => FIELD_ORDER.get(issue.path.split('.', 1)[0]!) ?? FIELD_ORDER.size;
  return issues.length < 2 ? issues : issues.sort((a, b) => rank(a) - rank(b));
}

function describeIssue(issue: z.core.$ZodIssue, kind: InputKind): { message: string; rule: string } {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return { message: 'required', rule: 'required' };
      if (input === null) return { message: 'must not be null', rule: 'null not allowed' };
      const note = kind === 'json' ? ' (JSON values are not coerced)' : '';
      return {
        message: `expected ${issue.expected}, got ${gotValue(input)}${note}`,
        rule: `expected ${issue.expected}`,
      };
    }
    case 'too_big':
      if (issue.origin === 'string' && typeof input === 'string') {
        return {
          message: `must be at most ${String(issue.maximum)} characters, got ${input.length}`,
          rule: `longer than ${String(issue.maximum)} characters`,
        };
      }
      return { message: issue.message, rule: issue.message };
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1)
        return { message: 'must not be empty', rule: 'empty' };
      return { message: issue.message, rule: issue.message };
    case 'invalid_format':
      if (issue.format === 'datetime') {
        const accepted = kind === 'csv' ? CSV_DATE_EXPECTED : DATE_EXAMPLE;
        // a local time (a workbook's date cell, a CRM's "2023-01-05 10:22") only lacks its zone
        const local =
          typeof input === 'string' && LOCAL_DATE_TIME.test(input)
            ? '; it has no offset: a "timeZone" rule in the mapping (--map) says where it was written'
            : '';
        return {
          message: `expected ${accepted}, got ${describeValue(input)}${local}`,
          rule: 'not an ISO 8601 date-time',
        };
      }
      return { message: issue.message, rule: issue.message };
    case 'invalid_union':
      return { message: `expected a JSON value, got ${typeof input}`, rule: 'not a JSON value' };
    case 'custom':
      return { message: `${issue.message}, got ${describeValue(input)}`, rule: issue.message };
    default:
      return { message: issue.message, rule: issue.message };
  }
}
