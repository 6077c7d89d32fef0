/**
 * `memberctl map init FILE`: a starter mapping from a file's headers (CSV, workbook) or property paths (JSON,
 * NDJSON) and its first 1,000 records. Each column goes through a waterfall (exact name, alias, close spelling,
 * values) and its values are checked against the guess; every column holding data is kept; what the file cannot
 * tell (a time zone, a status word, a missing id or join date) is a decision: the mapping names it under
 * "decisions" and refuses to run until the user settles it. Nothing is guessed silently.
 */
import { openRecordSource } from '../../io/open-source.js';
import type { SourceOptions, SourceRecord } from '../../io/source.js';
import { valueAtPath } from '../mapping/item-paths.js';
import { shellCommand } from '../shell-command.js';
import { profileColumn } from './classify/values.js';
import { type Proposal, proposeColumn, samplesOf } from './decide.js';
import { settleLookAlikes } from './look-alikes.js';
import { metadataKey } from './metadata-key.js';
import { apostropheDecisions } from './prefixes.js';
import { mentionZoneColumn } from './zone-column.js';
import { type Decision, settleRequired } from './required.js';

export type { Decision } from './required.js';

/** Records sampled: enough to see a column's kinds and its rare values, few enough to be instant. */
const SAMPLE_RECORDS = 1000;
const MAX_PATHS = 300;

export interface MapInitResult {
  /** The file as read (display name) and its format. */
  file: string;
  format: string;
  mapping: {
    description: string;
    columns: Record<string, unknown>;
    fields: Record<string, unknown>;
    decisions?: Record<string, string>;
  };
  /** The validate command that reads the file as map init did, before its `--map` (shell-quoted). */
  validateCommand: string;
  /** One line per guess, with its evidence (the header, sample values, how sure). */
  notes: string[];
  /** What the file cannot tell: each is in mapping.decisions, and the mapping refuses to run until it is settled. */
  decisions: Decision[];
  /** The column proposals (for --interactive: weak guesses are walked through). */
  proposals: Proposal[];
}

export async function initMapping(options: SourceOptions): Promise<MapInitResult> {
  const source = await openRecordSource(options);
  const sample: SourceRecord[] = [];
  const unread: SourceRecord[] = [];
  try {
    for await (const record of source) {
      // unreadable records tell nothing about the columns, but the user hears how many the sample left out
      if (record.error) {
        unread.push(record);
        continue;
      }
      sample.push(record);
      if (sample.length >= SAMPLE_RECORDS) break;
    }
  } finally {
    await source.close();
  }
  const tabular = source.headers !== undefined;
  const names = source.headers ?? jsonPaths(sample.map((r) => r.raw));
  const keyOf = metadataKeys(names);
  const isNullToken = nullTokenRule(options.nullToken);
  const proposals = names.map((name, index) => {
    const cells: string[] = [];
    const lines: number[] = [];
    for (const r of sample) {
      const value = tabular ? (r.raw as unknown[])[index] : valueAtPath(r.raw, name.split('.'));
      if (tabular && isNullToken(value, r, index)) continue; // a placeholder for "no value", as import reads it
      const text = value === undefined || value === null ? '' : String(value).trim();
      if (text === '') continue;
      cells.push(text);
      lines.push(r.line);
    }
    return proposeColumn(name, profileColumn(cells, sample.length), { cells, lines }, keyOf(name));
  });
  const { fields, notes } = settleLookAlikes(proposals, keyOf);
  const decisions = [
    ...proposals.flatMap((p): Decision[] =>
      (p.asks ?? []).map((ask) => ({
        key: p.column,
        field: p.field ?? '',
        kind: ask.kind,
        question: ask.question,
        column: p.column,
        samples: [...new Set(p.cells)].slice(0, 5),
        ...(ask.options ? { options: ask.options } : {}),
      })),
    ),
    ...apostropheDecisions(proposals),
    ...settleRequired(proposals, fields),
  ];
  mentionZoneColumn(decisions, proposals);
  const columns: Record<string, unknown> = {};
  for (const p of proposals) if (p.rule !== undefined) columns[p.column] = p.rule;
  const mapping: MapInitResult['mapping'] = { description: '', columns, fields };
  if (decisions.length > 0) mapping.decisions = mergedDecisions(decisions);
  // standard input is shown as "stdin" but read again as "-"
  const validateCommand = shellCommand([
    'memberctl',
    'validate',
    options.path === '-' ? '-' : source.file,
    ...readFlags(options),
  ]);
  mapping.description = `Starter mapping for ${source.file}, written by memberctl map init: check every rule (docs/mapping.md), settle each entry of "decisions" and delete it, then run ${validateCommand} --map <this file>.`;
  return {
    file: source.file,
    format: source.format,
    mapping,
    validateCommand,
    notes: [...unreadNote(unread, sample.length), ...notes, ...proposals.flatMap((p) => evidence(p))],
    decisions,
    proposals,
  };
}

/** How many records the sample left out as unreadable, and the first one's line and reason. */
function unreadNote(unread: readonly SourceRecord[], read: number): string[] {
  const first = unread[0];
  if (!first) return [];
  const count = unread.length === 1 ? '1 record' : `${unread.length} records`;
  return [
    `${count} of the first ${read + unread.length} could not be read and ${unread.length === 1 ? 'is' : 'are'} left out of the sample (the first: line ${first.line}: ${first.error!.message}); every proposal below rests on the other ${read}: validate lists them all`,
  ];
}

/** One entry per key: two questions about one column (its zone, and whether it is the join date) are one entry. */
function mergedDecisions(decisions: readonly Decision[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of decisions) out[d.key] = out[d.key] ? `${out[d.key]}; ${d.question}` : d.question;
  return out;
}

/** The note for one column: where it goes, how sure map init is, and what said so. */
function evidence(p: Proposal): string[] {
  if (p.certainty === 'exact' && p.why.length <= 1) return [];
  const where = p.rule === undefined ? `${p.field} (firstOf)` : p.field === null ? 'dropped (null)' : p.field;
  const sure = p.weak
    ? 'weak'
    : { exact: 'sure', alias: 'likely', fuzzy: 'weak', values: 'weak', kept: 'kept' }[p.certainty];
  const filled = p.profile.sampled ? `${p.profile.filled} of ${p.profile.sampled} filled` : 'no records';
  return [`"${p.column}" → ${where} [${sure}]: ${p.why.join('; ')}; ${filled}, ${samplesOf(p.cells)}`];
}

/** metadata keys from headers: "Company Name" → companyName, "Titles ID (Mr = 1…)" → titlesId; unique in the file. */
function metadataKeys(names: readonly string[]): (name: string) => string {
  const keys = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    let key = metadataKey(name);
    for (let n = 2; used.has(key); n++) key = `${key.replace(/\d+$/, '')}${n}`;
    used.add(key);
    keys.set(name, key);
  }
  return (name) => keys.get(name) ?? name;
}

/**
 * --null-token's rule, as the import's mapper applies it (csv-mapper.ts): a cell equal to the token is no value,
 * unless it was quoted (PostgreSQL COPY's rule: quoting says "this is text"). '' is --empty-as-null, whose empty
 * cells the sample skips anyway.
 */
function nullTokenRule(token: string | undefined): (value: unknown, record: SourceRecord, index: number) => boolean {
  if (token === undefined || token === '') return () => false;
  return (value, record, index) => value === token && !record.quotedNullTokens?.includes(index);
}

/** The flags that made the file read as it was (a sheet, an encoding, a null token, …): validate needs the same. */
function readFlags(options: SourceOptions): string[] {
  const flags: string[] = [];
  if (options.format) flags.push('--format', options.format);
  if (options.sheet !== undefined) flags.push('--sheet', options.sheet);
  if (options.encoding !== undefined) flags.push('--encoding', options.encoding);
  if (options.delimiter !== undefined)
    flags.push('--delimiter', options.delimiter === '\t' ? 'tab' : options.delimiter);
  if (options.nullToken !== undefined) flags.push('--null-token', options.nullToken);
  return flags;
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
