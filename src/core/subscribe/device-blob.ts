/**
 * `subscribe --from`: the three device values out of a JSON object as apps and logs print it. Keys are matched
 * without regard to case, `_`, `-`, `.` or spaces (`installation_id`, `installationID` and `InstallationId` are one
 * key), at the top level or one object down (`{"device": {…}}`, an event's `data`). Two different values for one
 * field, at one level or at both, are an error, never a guess, and so is one key given twice (JSON.parse would keep the last value without a
 * word). Nothing here echoes a value: problems name keys, never their contents.
 *
 * The JSON itself is read as the --map and settings files are (../json-document.ts: the byte order mark, curly
 * quotes named with where, keys given twice with their line). What is the blob's own: the object may sit inside a
 * log line, a key given twice counts only at the levels read, and a syntax error says where but not JSON.parse's
 * reason, which quotes a character of the text (a blob may be a secret pasted by mistake).
 */
import type { SubscriptionDraft } from './input.js';
import type { DuplicateKey } from '../../io/json-duplicate-keys.js';
import { normalizePlatform } from './platforms.js';
import { parseJsonDocument, repeatedKeys, withoutBom, type JsonDocument, type NotJson } from '../json-document.js';
import { BLOB_KEYS, DEVICE_FIELDS, type DeviceField } from './blob-keys.js';

export { BLOB_KEYS, type DeviceField };

/** A value found in the blob and where: `key` is the path as written there ("deviceToken", "device.os"). */
export interface BlobValue {
  value: string;
  key: string;
}

/** A field's value the blob holds in a way that cannot be used; moot when a flag gives that field. */
export type FieldProblem =
  | { kind: 'ambiguous'; field: DeviceField; keys: string[] }
  /** The same key twice in one object (JSON.parse would keep the last value without a word); `line` is 1-based. */
  | { kind: 'repeated'; field: DeviceField; key: string; line: number }
  | { kind: 'not-text'; field: DeviceField; key: string; got: JsonKind };

export type BlobProblem =
  | { kind: 'empty' }
  | { kind: 'too-large'; limitBytes: number }
  /** `where` is "(line 1, column 14)", or '' when JSON.parse did not say. */
  | { kind: 'not-json'; where: string }
  /** Not JSON because a notes or chat app made its quotes typographic (“ ”): where the first one is. */
  | { kind: 'curly-quotes'; line: number; column: number }
  | { kind: 'not-object'; got: JsonKind }
  | FieldProblem;

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export type DeviceBlob =
  | {
      kind: 'read';
      values: Partial<Record<DeviceField, BlobValue>>;
      fieldProblems: FieldProblem[];
      /** The blob's own keys (top level and one down), to say what it had when a field is missing. */
      keysSeen: string[];
      /** Characters of log text around the JSON object that were left out (a pasted log line). */
      ignoredChars: number;
    }
  | { kind: 'invalid'; problems: BlobProblem[] };

export type ReadBlob = Extract<DeviceBlob, { kind: 'read' }>;

const squash = (key: string) => key.toLowerCase().replace(/[\s_.-]+/g, '');

/** Whether `key`, as the blob spells it, is one of the keys read for `field` (any case, with or without _ or -). */
export function isKeyFor(field: DeviceField, key: string): boolean {
  const { keys, fallback } = BLOB_KEYS[field];
  return [...keys, ...fallback].some((known) => squash(known) === squash(key));
}
const kindOf = (value: unknown): JsonKind =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as JsonKind);
const isObject = (value: unknown): value is Record<string, unknown> => kindOf(value) === 'object';

type ParsedDocument = Extract<JsonDocument, { ok: true }>;

/**
 * The JSON object in `raw`: the whole text, or the `{…}` inside a log line (from the first `{` to the last `}`).
 * The log text before the object is read as blanks (newlines kept), so that every line and column said, of a
 * syntax error, a curly quote or a repeated key, is where the person sees it in what they pasted.
 */
function findObject(raw: string): { document: ParsedDocument; ignoredChars: number } | { problem: NotJson } {
  const whole = parseJsonDocument(raw);
  if (whole.ok) return { document: whole, ignoredChars: 0 };
  const text = withoutBom(raw);
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return { problem: whole.problem };
  const object = text.slice(start, end + 1);
  if (object === text.trim()) return { problem: whole.problem }; // nothing around it: the same text, the same error
  const inside = parseJsonDocument(text.slice(0, start).replace(/[^\n]/g, ' ') + object);
  if (!inside.ok) return { problem: inside.problem };
  return { document: inside, ignoredChars: text.trim().length - object.length };
}

interface Found {
  key: string;
  raw: unknown;
}

/** Every key of one field in one object, by its squashed name. */
function lookUp(object: Record<string, unknown>, names: readonly string[], prefix: string): Found[] {
  const wanted = new Set(names.map(squash));
  return Object.entries(object)
    .filter(([key, raw]) => wanted.has(squash(key)) && raw !== null && raw !== undefined)
    .map(([key, raw]) => ({ key: prefix + key, raw }));
}

/**
 * The keys at the top level and one object down, all of them: nearness is no evidence of meaning (a login log's
 * top-level "token" is often the auth token beside `device.token`), so two levels that differ are ambiguous.
 */
function candidates(root: Record<string, unknown>, names: readonly string[]): Found[] {
  const top = lookUp(root, names, '');
  const below = Object.entries(root).flatMap(([key, child]) =>
    isObject(child) ? lookUp(child, names, `${key}.`) : [],
  );
  return [...top, ...below];
}

/** Installation ids printed as numbers are taken as their digits; a token or platform must be text. */
function asText(field: DeviceField, raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (field === 'installationId' && typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw);
  return undefined;
}

/** Values mean the same: equal text, or for platforms the same platform (`"os": "iOS"` and `"platform": "apns"`). */
function sameValue(field: DeviceField, a: string, b: string): boolean {
  if (a === b) return true;
  return field === 'platform' && normalizePlatform(a) !== undefined && normalizePlatform(a) === normalizePlatform(b);
}

function readField(root: Record<string, unknown>, field: DeviceField): { value?: BlobValue; problem?: FieldProblem } {
  const { keys, fallback } = BLOB_KEYS[field];
  let found = candidates(root, keys);
  if (found.length === 0) found = candidates(root, fallback);
  if (found.length === 0) return {};
  const values: BlobValue[] = [];
  for (const { key, raw } of found) {
    const value = asText(field, raw);
    if (value === undefined) return { problem: { kind: 'not-text', field, key, got: kindOf(raw) } };
    values.push({ value, key });
  }
  const differing = values.filter((v) => !sameValue(field, v.value, values[0]!.value));
  if (differing.length > 0) return { problem: { kind: 'ambiguous', field, keys: values.map((v) => v.key) } };
  return { value: values[0] };
}

/** Keys given twice at the levels read (the top level and one object down); deeper ones are never read. */
function repeatedAtLevelsRead(document: ParsedDocument): DuplicateKey[] {
  return repeatedKeys(document).filter((duplicate) => duplicate.depth <= 1 && !duplicate.path.includes('['));
}

export const BLOB_LIMIT_BYTES = 1024 * 1024;

/** Curly quotes are named, not read as JSON's (../json-position.ts says why); a syntax error says only where. */
function notJson(problem: NotJson): BlobProblem {
  if (problem.kind === 'curly-quotes') return problem;
  return { kind: 'not-json', where: problem.where };
}

export function parseDeviceBlob(text: string): DeviceBlob {
  if (withoutBom(text).trim() === '') return { kind: 'invalid', problems: [{ kind: 'empty' }] };
  const found = findObject(text);
  if ('problem' in found) return { kind: 'invalid', problems: [notJson(found.problem)] };
  const { json } = found.document;
  if (!isObject(json)) return { kind: 'invalid', problems: [{ kind: 'not-object', got: kindOf(json) }] };
  const root = json;
  const values: Partial<Record<DeviceField, BlobValue>> = {};
  const fieldProblems: FieldProblem[] = [];
  const repeated = repeatedAtLevelsRead(found.document);
  for (const field of DEVICE_FIELDS) {
    const { value, problem } = readField(root, field);
    const twice = repeated.find((duplicate) => isKeyFor(field, duplicate.key));
    if (twice) fieldProblems.push({ kind: 'repeated', field, key: twice.path, line: twice.line + 1 });
    else if (problem) fieldProblems.push(problem);
    if (value) values[field] = value;
  }
  const keysSeen = Object.entries(root).flatMap(([key, child]) =>
    isObject(child) ? [key, ...Object.keys(child).map((k) => `${key}.${k}`)] : [key],
  );
  return { kind: 'read', values, fieldProblems, keysSeen, ignoredChars: found.ignoredChars };
}

/** Where each draft value came from, for messages: a blob key, or the command line when absent. */
export type BlobSources = Partial<Record<DeviceField, string>>;

export interface MergedBlob {
  draft: SubscriptionDraft;
  sources: BlobSources;
  /** Fields where a flag replaced a different blob value, so the user can be told. */
  overridden: { field: DeviceField; key: string }[];
  /** The blob's field problems that still matter: those of fields no flag gave. */
  problems: FieldProblem[];
}

/** The draft with the blob's values filled in where the command line gave none: flags win. */
export function mergeBlob(draft: SubscriptionDraft, blob: ReadBlob): MergedBlob {
  const merged: SubscriptionDraft = { ...draft };
  const sources: BlobSources = {};
  const overridden: MergedBlob['overridden'] = [];
  for (const field of DEVICE_FIELDS) {
    const found = blob.values[field];
    if (!found) continue;
    if (draft[field] === undefined) {
      merged[field] = found.value;
      sources[field] = found.key;
    } else if (!sameValue(field, draft[field], found.value)) {
      overridden.push({ field, key: found.key });
    }
  }
  const problems = blob.fieldProblems.filter((problem) => draft[problem.field] === undefined);
  return { draft: merged, sources, overridden, problems };
}
