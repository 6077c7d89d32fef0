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

export async function initMapping(
  options: SourceOptions,
  localZone = Intl.DateTimeFormat().resolvedOptions().timeZone,
): Promise<MapInitResult> {
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
  const cellsOf = (name: string, index: number): Cell[] =>
    sample.flatMap((r) => {
      const value = tabular ? (r.raw as unknown[])[index] : valueAtPath(r.raw, name.split('.'));
      const text = value === undefined || value === null ? '' : String(value).trim();
      return text === '' ? [] : [{ text, line: r.line }];
    });

  const fields: Record<string, unknown> = {};
  const notes: string[] = [];
  const guesses = names.map((name) => guessTarget(name));
  // each field's columns are settled together; the rules are then written in header order
  const rules = new Map<string, unknown>();
  for (const target of new Set(guesses)) {
    if (target === undefined) continue;
    const proposals = names.flatMap((name, i) =>
      guesses[i] === target ? [proposeRule(name, target, cellsOf(name, i), localZone)] : [],
    );
    settle(target, proposals, { rules, fields, notes });
  }
  const columns: Record<string, unknown> = {};
  names.forEach((name, i) => {
    if (guesses[i] === undefined || rules.has(name)) columns[name] = rules.get(name) ?? null;
  });
  for (const field of REQUIRED_FIELDS) {
    if (guesses.includes(field)) continue;
    const like = headersLike(field, names, 3).filter((h) => columns[h] === null);
    fields[field] = placeholderFor(field);
    // isActive's placeholder is a real value (every member active): say so, since nothing will fail to remind them
    const what =
      field === 'isActive'
        ? 'says true for every member: map a status column instead if there is one'
        : 'holds a placeholder: replace it';
    notes.push(
      `${field}: no column looks like it${like.length ? ` for sure (closest: ${like.map((h) => `"${h}"`).join(', ')})` : ''}; fields["${field}"] ${what}`,
    );
  }
  // standard input is shown as "stdin" but read again as "-"
  const validateCommand = shellCommand([
    'memberctl',
    'validate',
    options.path === '-' ? '-' : source.file,
    ...readFlags(options),
  ]);
  const description = `Starter mapping for ${source.file}, written by memberctl map init: check every rule (docs/mapping.md), then run ${validateCommand} --map <this file>.`;
  return {
    file: source.file,
    format: source.format,
    mapping: { description, columns, fields },
    validateCommand,
    notes,
  };
}

/** A sampled non-empty cell and the line it is on (for notes that name it). */
interface Cell {
  text: string;
  line: number;
}

/** The rule map init proposes for one column, how many sampled cells it reads, and what the user should check. */
interface Proposal {
  name: string;
  rule: unknown;
  reads: number;
  /** The cells read as they are (no "values" guessed, no conversion). */
  plain: boolean;
  notes: string[];
}

/**
 * One field, the columns that look like it. One column: its rule. Several that take the same rule (Work Email,
 * Home Email): `firstOf` with that rule. Several that need different rules (Status words beside an Active yes/no):
 * a firstOf would read them all with one rule, so the column read best is mapped and the others are null, noted
 * with the rule that would map them instead.
 */
function settle(
  target: string,
  proposals: Proposal[],
  out: { rules: Map<string, unknown>; fields: Record<string, unknown>; notes: string[] },
): void {
  const [first] = proposals;
  if (proposals.length === 1) {
    out.rules.set(first!.name, first!.rule);
    out.notes.push(...first!.notes);
    return;
  }
  const options = proposals.map((p) => JSON.stringify(cellOptionsOf(p.rule)));
  if (options.every((o) => o === options[0])) {
    const names = proposals.map((p) => p.name);
    out.fields[target] = { firstOf: names, ...cellOptionsOf(first!.rule) };
    out.notes.push(
      `${target}: ${names.map((h) => `"${h}"`).join(', ')} look alike; fields["${target}"] takes the first non-empty of them, in that order`,
    );
    out.notes.push(...new Set(proposals.flatMap((p) => p.notes)));
    return;
  }
  const best = proposals.reduce((a, b) => (b.reads > a.reads || (b.reads === a.reads && b.plain && !a.plain) ? b : a));
  out.rules.set(best.name, best.rule);
  out.notes.push(...best.notes);
  for (const other of proposals) {
    if (other === best) continue;
    out.rules.set(other.name, null);
    out.notes.push(
      `${target}: "${best.name}" is mapped; "${other.name}" looks like it too but needs another rule, so it is null. To use it instead: "${other.name}": ${JSON.stringify(other.rule)}, "${best.name}": null`,
    );
  }
}

/** A column rule's cell options (a fields rule takes the same ones): {} for a bare field name. */
function cellOptionsOf(rule: unknown): Record<string, unknown> {
  if (typeof rule !== 'object' || rule === null) return {};
  const { field: _field, ...options } = rule as Record<string, unknown>;
  return options;
}

function proposeRule(name: string, target: string, sampled: Cell[], localZone: string): Proposal {
  const cells = sampled.map((c) => c.text);
  const notes: string[] = [];
  const plain = (rule: unknown, reads = cells.length): Proposal => ({
    name,
    rule,
    reads,
    plain: rule === target,
    notes,
  });
  if (target === 'birthdate' || target === 'createdAt') {
    const guess = guessDateFormat(cells);
    if (!guess) {
      notes.push(`"${name}" → ${target}: no date format reads its first cells; set "format" (docs/mapping.md#format)`);
      return plain(target, 0);
    }
    const reads = cells.length - guess.misses.length;
    const format = guess.format ? ` in "${guess.format}"` : '';
    if (guess.iso > 0 && guess.format)
      notes.push(
        `"${name}" → ${target}: ${guess.iso} of its first ${cells.length} cells are dates (read as they are), the others text${format}`,
      );
    if (guess.misses.length > 0)
      notes.push(
        missesNote(
          name,
          target,
          cells.length,
          format,
          guess.misses.map((i) => sampled[i]!),
        ),
      );
    if (!guess.local) return plain(guess.format ? { field: target, format: guess.format } : target, reads);
    notes.push(
      `"${name}" → ${target}: times without an offset; assumed "timeZone": "${localZone}" (this computer's zone): check it`,
    );
    return plain(
      guess.format
        ? { field: target, format: guess.format, timeZone: localZone }
        : { field: target, timeZone: localZone },
      reads,
    );
  }
  if (target === 'isActive' || target === 'isEmployee' || target === 'deceased' || target === 'isMembershipFeePaid') {
    const values = guessValues(cells);
    if (!values) return plain(target);
    const unsure = Object.entries(values)
      .filter(([, v]) => v === null)
      .map(([k]) => `"${k}"`);
    if (unsure.length) notes.push(`"${name}" → ${target}: say true or false for ${unsure.join(', ')} in "values"`);
    return plain({ field: target, values }, cells.filter((c) => typeof values[c.toLowerCase()] === 'boolean').length);
  }
  if (target === 'address.countryCode' && needsCountryConversion(cells))
    return plain({ field: target, convert: 'countryCode' });
  return plain(target);
}

/** "2 of its first 40 cells are not dates in "dd.MM.yyyy": "31.02.2024" (line 7), "n/a" (line 9): check them". */
function missesNote(name: string, target: string, sampled: number, format: string, misses: Cell[]): string {
  const one = misses.length === 1;
  const shown =
    misses
      .slice(0, 3)
      .map((c) => `${JSON.stringify(c.text)} (line ${c.line})`)
      .join(', ') + (misses.length > 3 ? ', …' : '');
  return `"${name}" → ${target}: ${misses.length} of its first ${sampled} cells ${one ? 'is not a date' : 'are not dates'}${format}: ${shown}: check ${one ? 'it' : 'them'}`;
}

/** The flags that made the file readable (a sheet, an encoding, …): validate needs the same ones. */
function readFlags(options: SourceOptions): string[] {
  const flags: string[] = [];
  if (options.format) flags.push('--format', options.format);
  if (options.sheet !== undefined) flags.push('--sheet', options.sheet);
  if (options.encoding !== undefined) flags.push('--encoding', options.encoding);
  if (options.delimiter !== undefined)
    flags.push('--delimiter', options.delimiter === '\t' ? 'tab' : options.delimiter);
  return flags;
}

function placeholderFor(field: (typeof REQUIRED_FIELDS)[number]): unknown {
  if (field === 'isActive') return { value: true };
  if (field === 'createdAt')
    return { value: 'REPLACE: when these members joined, e.g. 2024-01-01T00:00:00Z, or map a column' };
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
