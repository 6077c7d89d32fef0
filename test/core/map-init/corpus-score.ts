/**
 * Scores map init's mapping for one export against the finished mapping written by hand: every record is mapped
 * with both, and the items compared. The figures of issue 25: columns routed right, wrong values stored, values
 * lost, records the finished mapping sends that map init's refuses. Decisions and placeholders aside: a field map
 * init asks about (or fills with a placeholder) is the user's answer, not map init's guess.
 */
import { readFileSync } from 'node:fs';
import type { MapInitResult } from '../../../src/core/map-init/map-init.js';
import { createRecordMapper, parseMapping } from '../../../src/core/mapping/index.js';
import { resolveFieldTarget, targetPath } from '../../../src/core/mapping/targets.js';
import { openRecordSource } from '../../../src/io/open-source.js';
import type { SourceRecord } from '../../../src/io/source.js';

export interface Score {
  file: string;
  /** Columns holding data, and those map init routes where the finished mapping does (any metadata key is one place). */
  columns: number;
  routed: number;
  misrouted: string[];
  wrong: number;
  wrongExamples: string[];
  lost: number;
  refused: number;
  decisions: number;
}

type Json = Record<string, unknown>;

/** Where a mapping sends a column: the set of places ("metadata" for any metadata or customProperties key). */
export function placesOf(mapping: Json, column: string): string {
  const columns = (mapping.columns ?? {}) as Json;
  const fields = (mapping.fields ?? {}) as Record<string, Json>;
  const places = new Set<string>();
  const add = (field: string) => places.add(/^(metadata|customProperties)\./.test(field) ? 'kept' : field);
  const rule = columns[column];
  if (rule === null) places.add('dropped');
  else if (rule !== undefined)
    for (const one of Array.isArray(rule) ? rule : [rule])
      add(typeof one === 'string' ? one : String((one as Json).field));
  for (const [field, entry] of Object.entries(fields))
    if (entry.column === column || (Array.isArray(entry.firstOf) && entry.firstOf.includes(column))) add(field);
  if (places.size === 0) {
    const own = resolveFieldTarget(column);
    places.add(own ? targetPath(own) : 'unmapped');
  }
  return [...places].sort().join('+');
}

/**
 * map init's mapping with what it asks about answered as the finished mapping answers it: the rules feeding an
 * asked field are replaced by the finished mapping's rules for that field (a column feeding it and others keeps the others).
 */
function settledAsFinished(mapping: Json, finished: Json, asked: Set<string>): Json {
  const { decisions: _answered, ...rest } = mapping;
  const columns = { ...((rest.columns ?? {}) as Json) };
  const fields = { ...((rest.fields ?? {}) as Json) };
  const fieldOf = (one: unknown) => (typeof one === 'string' ? one : String((one as Json).field));
  const without = (rule: unknown): unknown => {
    if (rule === null || rule === undefined) return rule;
    const kept = (Array.isArray(rule) ? rule : [rule]).filter((one) => !asked.has(fieldOf(one)));
    return kept.length === 0 ? null : kept.length === 1 ? kept[0] : kept;
  };
  for (const column of Object.keys(columns)) columns[column] = without(columns[column]);
  for (const field of asked) delete fields[field];
  for (const [column, rule] of Object.entries((finished.columns ?? {}) as Json)) {
    if (rule === null) continue;
    const answers = (Array.isArray(rule) ? rule : [rule]).filter((one) => asked.has(fieldOf(one)));
    if (answers.length === 0) continue;
    const mine = columns[column];
    const merged = [...(mine === null || mine === undefined ? [] : Array.isArray(mine) ? mine : [mine]), ...answers];
    columns[column] = merged.length === 1 ? merged[0] : merged;
  }
  for (const [field, entry] of Object.entries((finished.fields ?? {}) as Json))
    if (asked.has(field)) fields[field] = entry;
  return { ...rest, columns, fields };
}

function leaves(item: Json, prefix = ''): [string, unknown][] {
  return Object.entries(item).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? leaves(value as Json, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value] as [string, unknown]],
  );
}

export async function scoreExport(path: string, init: MapInitResult, finishedPath: string): Promise<Score> {
  const finished = JSON.parse(readFileSync(finishedPath, 'utf8')) as Json;
  const source = await openRecordSource({ path });
  const records: SourceRecord[] = [];
  for await (const record of source) records.push(record);
  await source.close();
  const headers = source.headers ?? [];
  const asked = new Set((init.decisions ?? []).map((d) => d.field));
  for (const [field, entry] of Object.entries(init.mapping.fields as Record<string, Json>))
    if ('value' in entry || String(entry.column).startsWith('REPLACE')) asked.add(field);
  const proposed = settledAsFinished(init.mapping as Json, finished, asked);
  const ours = createRecordMapper(source.format, headers, { file: path, mapping: parseMapping(proposed, 'init') });
  const theirs = createRecordMapper(source.format, headers, { file: path, mapping: parseMapping(finished, 'done') });
  const score: Score = {
    file: path.split('/').pop()!,
    columns: 0,
    routed: 0,
    misrouted: [],
    wrong: 0,
    wrongExamples: [],
    lost: 0,
    refused: 0,
    decisions: init.decisions?.length ?? 0,
  };
  headers.forEach((header, i) => {
    if (!records.some((r) => String((r.raw as unknown[])[i] ?? '').trim() !== '')) return;
    score.columns++;
    const want = placesOf(finished, header);
    const got = placesOf(init.mapping as Json, header);
    if (want === got) score.routed++;
    else score.misrouted.push(`${header}: ${got} (want ${want})`);
  });
  for (const record of records) {
    const done = theirs.toCandidate(record);
    if (!done.valid) continue;
    const mine = ours.toCandidate(record);
    if (!mine.valid) {
      score.refused++;
      continue;
    }
    const mineLeaves = new Map(leaves(mine.item as Json));
    const doneLeaves = new Map(leaves(done.item as Json));
    const kept = (path: string) => /^(metadata|customProperties)\./.test(path);
    const mineValues = new Set([...mineLeaves.values()].map(String));
    for (const [path, value] of mineLeaves) {
      if (kept(path) || asked.has(path) || value === null) continue;
      if (JSON.stringify(doneLeaves.get(path)) !== JSON.stringify(value)) {
        score.wrong++;
        if (score.wrongExamples.length < 5)
          score.wrongExamples.push(
            `line ${record.line} ${path}: ${JSON.stringify(value)} (want ${JSON.stringify(doneLeaves.get(path))})`,
          );
      }
    }
    for (const [path, value] of doneLeaves) {
      if (value === null || value === '' || asked.has(path)) continue;
      const found = kept(path) ? mineValues.has(String(value)) : mineLeaves.has(path);
      if (!found) score.lost++;
    }
  }
  return score;
}
