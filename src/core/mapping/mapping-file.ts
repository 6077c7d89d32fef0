/**
 * The --map file: a small declarative language from an export's columns (CSV headers, or dotted paths into a JSON
 * record) to upsert item fields. Here the file is read as written (json-document.ts) and its types are declared;
 * compile-mapping.ts checks each rule by its schema (mapping-schema.ts) and compiles it once into a reader.
 * docs/mapping.md is its reference. Example:
 *   {"columns": {"Customer Id": "memberId", "Old Notes": null,
 *                "Create Date": {"field": "createdAt", "format": "yyyy-MM-dd HH:mm", "timeZone": "America/New_York"},
 *                "Status": {"field": "isActive", "values": {"active": true, "lapsed": false}}},
 *    "fields": {"loyaltyProgram": {"default": "basic"}, "email": {"firstOf": ["Work Email", "Home Email"]}}}
 */
import { readFile } from 'node:fs/promises';
import {
  CURLY_QUOTES_HINT,
  notJsonText,
  parseJsonDocument,
  REPEATED_KEY_HINT,
  repeatedKeyText,
  repeatedKeys,
} from '../json-document.js';
import { firstLossyNumber } from '../../schemas/exact-number.js';
import { UsageError } from '../../errors.js';
import { FORMAT_HINT, parseMapping, Problems } from './compile-mapping.js';
import type { CellReader } from './rules/cell-rule.js';
import type { FieldTarget } from './targets.js';

/** One field a column feeds (a column may feed several). */
export interface Feed {
  target: FieldTarget;
  path: string;
  read: CellReader;
  /** An empty cell is sent as null instead of leaving the field out. */
  emptyAsNull: boolean;
  /** "onInvalid": "omit": a cell that cannot be read, or that the schema refuses, leaves the field out. */
  omitInvalid: boolean;
}

/** A `fields` entry: a constant, a default, or the first non-empty of several columns. */
export interface FieldRule {
  target: FieldTarget;
  path: string;
  /** Columns to take the first non-empty cell of (firstOf, or column); empty for value/default only. */
  sources: string[];
  read: CellReader;
  value?: { value: unknown };
  fallback?: { value: unknown };
  /** "onInvalid": "omit" (see Feed). */
  omitInvalid: boolean;
}

export interface Mapping {
  /** Display name of the mapping file, for messages. */
  file: string;
  /** Column name (or JSON path) as written in the file → the fields it feeds; null drops the column. */
  columns: Map<string, Feed[] | null>;
  fields: FieldRule[];
  /** Everything in the file that decides an item, plus the time zone data's version: part of --changed-only's source key. */
  fingerprint: string;
  /** The file's text, as read (loadMappingFile): the CSV worker compiles the same mapping from it (mappingFromText). */
  text?: string;
}

export async function loadMappingFile(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'not found'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new UsageError(`mapping file ${path}: ${reason}`, { code: 'mapping-file', hint: FORMAT_HINT });
  }
  const document = parseJsonDocument(text);
  if (!document.ok)
    throw new UsageError(`mapping file ${path} is ${notJsonText(document.problem)}`, {
      code: 'mapping-file',
      hint: document.problem.kind === 'curly-quotes' ? CURLY_QUOTES_HINT : FORMAT_HINT,
    });
  refuseSilentChanges(path, document);
  return { ...parseMapping(document.json, path), text };
}

/** The mapping a file's text (Mapping.text, checked when it was loaded) compiles to: in another thread. */
export function mappingFromText(text: string, path: string): Mapping {
  const document = parseJsonDocument(text);
  if (!document.ok) throw new Error(`mapping file ${path} no longer parses`);
  return parseMapping(document.json, path);
}

/**
 * What JSON.parse changes without a word: a key given twice in one object ("columns" twice, "field" twice in a
 * rule) keeps only the last, so half of the file would be dropped; a number a double cannot hold ("value":
 * 9007199254740993) is rounded. Each is refused, naming the key's path and its line.
 */
function refuseSilentChanges(path: string, document: { json: unknown; text: string }): void {
  const problems = new Problems(path);
  const lossy = firstLossyNumber(document.text);
  if (lossy)
    problems.add(
      `the number ${lossy.written}${lossy.path ? ` at ${JSON.stringify(lossy.path)}` : ''} cannot be held exactly: it would be sent as ${lossy.sent} (line ${lossy.line + 1})`,
      `write it in quotes ("${lossy.written}") to send it as text; a JSON number keeps about 15–17 significant digits`,
    );
  for (const duplicate of repeatedKeys(document)) problems.add(repeatedKeyText(duplicate), REPEATED_KEY_HINT);
  problems.throwIfAny();
}
