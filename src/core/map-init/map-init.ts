/**
 * `memberctl map init FILE`: a starter mapping from a file's headers (CSV, workbook) or property paths (JSON,
 * NDJSON) and its first records, so a new user starts from something that almost works: a best-guess field for
 * each column and null for the rest, a format for date columns, values for a status column, a placeholder for
 * each required field no column gives. The mapping it writes loads as it is (tests check that).
 */
import { openRecordSource } from '../../io/open-source.js';
import type { SourceOptions, SourceRecord } from '../../io/source.js';
import { valueAtPath } from '../mapping/item-paths.js';
import { REQUIRED_FIELDS, headersLike } from '../mapping/required-fields.js';
import { shellCommand } from '../shell-command.js';
import { guessDateFormat, guessTarget, guessValues, needsCountryConversion } from './sniff.js';

/** Records read for sniffing: enough to see a few date and status values, few enough to be instant. */
const SAMPLE_RECORDS = 200;
const MAX_PATHS = 300;

export interface MapInitResult {
  /** The file as read (display name) and its format. */
  file: string;
  format: string;
  mapping: { description: string; columns: Record<string, unknown>; fields: Record<string, unknown> };
  /** The validate command that reads the file as map init did, before its `--map` (shell-quoted). */
  validateCommand: string;
  /** One line per guess the user should check (placeholders, a zone assumed, ambiguous dates). */
  notes: string[];
}

export async function initMapping(options: SourceOptions, localZone = Intl.DateTimeFormat().resolvedOptions().timeZone): Promise<MapInitResult> {
  const source = await openRecordSource(options);
  const sample: SourceRecord[] = [];
  try {
    for await (const record of source) {
      sample.push(record);
      if (sample.length >= SAMPLE_RECORDS) break;
    }
  } finally {
    await source.close();
  }
  const tabular = source.headers !== undefined;
  const names = source.headers ?? jsonPaths(sample.map((r) => r.raw));
  const cellsOf = (name: string, index: number) =>
    sample.map((r) => (tabular ? (r.raw as unknown[])[index] : valueAtPath(r.raw, name.split('.')))).filter((v) => v !== undefined && v !== null && String(v).trim() !== '').map((v) => String(v).trim());

  const columns: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  const notes: string[] = [];
  const taken = new Set<string>();
  const guesses = names.map((name) => guessTarget(name));
  names.forEach((name, index) => {
    const target = guesses[index];
    if (target === undefined) {
      columns[name] = null;
      return;
    }
    const same = names.filter((_, i) => guesses[i] === target);
    if (taken.has(target)) return;
    taken.add(target);
    if (same.length > 1) {
      // Work Email, Home Email: the first non-empty of them
      fields[target] = { firstOf: same };
      notes.push(`${target}: ${same.map((h) => `"${h}"`).join(', ')} look alike; fields["${target}"] takes the first non-empty of them, in that order`);
      return;
    }
    columns[name] = ruleFor(name, target, cellsOf(name, index), localZone, notes);
  });
  for (const field of REQUIRED_FIELDS) {
    if (taken.has(field)) continue;
    const like = headersLike(field, names, 3).filter((h) => columns[h] === null);
    fields[field] = placeholderFor(field);
    // isActive's placeholder is a real value (every member active): say so, since nothing will fail to remind them
    const what = field === 'isActive' ? 'says true for every member: map a status column instead if there is one' : 'holds a placeholder: replace it';
    notes.push(`${field}: no column looks like it${like.length ? ` for sure (closest: ${like.map((h) => `"${h}"`).join(', ')})` : ''}; fields["${field}"] ${what}`);
  }
  // standard input is shown as "stdin" but read again as "-"
  const validateCommand = shellCommand(['memberctl', 'validate', options.path === '-' ? '-' : source.file, ...readFlags(options)]);
  const description = `Starter mapping for ${source.file}, written by memberctl map init: check every rule (docs/mapping.md), then run ${validateCommand} --map <this file>.`;
  return { file: source.file, format: source.format, mapping: { description, columns, fields }, validateCommand, notes };
}

function ruleFor(name: string, target: string, cells: string[], localZone: string, notes: string[]): unknown {
  const dateField = target === 'birthdate' || target === 'createdAt';
  if (dateField) {
    const guess = guessDateFormat(cells);
    if (!guess) {
      notes.push(`"${name}" → ${target}: no date format reads its first cells; set "format" (docs/mapping.md#format)`);
      return target;
    }
    if (guess.misses > 0) notes.push(`"${name}" → ${target}: ${guess.misses} of its first ${cells.length} cells are not dates${guess.format ? ` in "${guess.format}"` : ''}: check them`);
    if (!guess.local) return guess.format ? { field: target, format: guess.format } : target;
    notes.push(`"${name}" → ${target}: times without an offset; assumed "timeZone": "${localZone}" (this computer's zone): check it`);
    return guess.format ? { field: target, format: guess.format, timeZone: localZone } : { field: target, timeZone: localZone };
  }
  if (target === 'isActive' || target === 'isEmployee' || target === 'deceased' || target === 'isMembershipFeePaid') {
    const values = guessValues(cells);
    if (!values) return target;
    const unsure = Object.entries(values).filter(([, v]) => v === null).map(([k]) => `"${k}"`);
    if (unsure.length) notes.push(`"${name}" → ${target}: say true or false for ${unsure.join(', ')} in "values"`);
    return { field: target, values };
  }
  if (target === 'address.countryCode' && needsCountryConversion(cells)) return { field: target, convert: 'countryCode' };
  return target;
}

/** The flags that made the file readable (a sheet, an encoding, …): validate needs the same ones. */
function readFlags(options: SourceOptions): string[] {
  const flags: string[] = [];
  if (options.format) flags.push('--format', options.format);
  if (options.sheet !== undefined) flags.push('--sheet', options.sheet);
  if (options.encoding !== undefined) flags.push('--encoding', options.encoding);
  if (options.delimiter !== undefined) flags.push('--delimiter', options.delimiter === '\t' ? 'tab' : options.delimiter);
  return flags;
}

function placeholderFor(field: (typeof REQUIRED_FIELDS)[number]): unknown {
  if (field === 'isActive') return { value: true };
  if (field === 'createdAt') return { value: 'REPLACE: when these members joined, e.g. 2024-01-01T00:00:00Z, or map a column' };
  return { column: 'REPLACE: the header of a column holding a unique id' };
}

/** Dotted paths to the scalar values of the first records (arrays by index), in first-seen order. */
function jsonPaths(records: readonly unknown[]): string[] {
  const paths = new Set<string>();
  const walk = (value: unknown, prefix: string, depth: number) => {
    if (paths.size >= MAX_PATHS) return;
    if (typeof value === 'object' && value !== null && depth < 8) {
      for (const [key, inner] of Object.entries(value)) walk(inner, prefix ? `${prefix}.${key}` : key, depth + 1);
    } else if (prefix) paths.add(prefix);
  };
  for (const record of records) walk(record, '', 0);
  return [...paths];
}
