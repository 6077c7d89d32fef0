/**
 * JSON and NDJSON records. Without a mapping they are taken as they are: the schema alone decides, nothing is
 * coerced. With one, its `columns` keys are dotted paths into the record ("contact.emails.0"): a string, number or
 * boolean found there is read as its text, like a CSV cell (rules, then the field's type: an id 42 becomes "42");
 * null clears the field; an object or array goes through as it is. Top-level properties no rule reads pass through
 * unchanged (the schema judges them); a field a rule fills is built from the rules alone.
 */
import type { Candidate, RecordIssue } from '../candidate.js';
import type { SourceRecord } from '../../io/source.js';
import { CellProblem } from './coerce.js';
import { describeValue, sortByFieldOrder } from './issues.js';
import { assignerFor, getterFor, valueAtPath, type Assign, type Item } from './item-paths.js';
import type { Mapping } from './mapping-file.js';
import { NOT_GIVEN, type CellReader } from './rules/cell-rule.js';
import { checkItem } from './validate-item.js';
import { OmitRules } from './omit-invalid.js';

export function jsonToCandidate(source: SourceRecord): Candidate {
  const { record, line, raw } = source;
  if (!isObject(raw)) return notAnObject(source);
  const check = checkItem(raw, 'json');
  const memberId = memberIdText((raw as { memberId?: unknown }).memberId);
  return check.ok
    ? { record, line, memberId, raw, valid: true, item: check.item }
    : { record, line, memberId, raw, valid: false, issues: check.issues };
}

interface PathRule {
  key: string;
  path: string[];
  target: string;
  read: CellReader;
  assign: Assign;
  emptyAsNull: boolean;
}

export function buildJsonMapper(mapping: Mapping): (source: SourceRecord) => Candidate {
  const rules: PathRule[] = [];
  const consumed = new Set<string>();
  for (const [key, feeds] of mapping.columns) {
    const path = key.split('.');
    consumed.add(path[0]!);
    for (const feed of feeds ?? []) {
      rules.push({
        key,
        path,
        target: feed.path,
        read: feed.read,
        assign: assignerFor(feed.target),
        emptyAsNull: feed.emptyAsNull,
      });
      consumed.add(feed.path.split('.')[0]!);
    }
  }
  const fields = mapping.fields.map((rule) => {
    consumed.add(rule.path.split('.')[0]!);
    for (const source of rule.sources) consumed.add(source.split('.')[0]!);
    // a path rule feeds this field too: the field rule applies only when that value gave nothing (as for CSV)
    const besideColumn = rules.some((r) => r.target === rule.path);
    return {
      rule,
      paths: rule.sources.map((s) => s.split('.')),
      assign: assignerFor(rule.target),
      get: getterFor(rule.target),
      besideColumn,
    };
  });

  const omit = new OmitRules([
    ...[...mapping.columns.values()].flatMap((feeds) => (feeds ?? []).filter((feed) => feed.omitInvalid)),
    ...mapping.fields.filter((rule) => rule.omitInvalid),
  ]);

  return (source) => {
    const { record, line, raw } = source;
    if (!isObject(raw)) return notAnObject(source);
    const item: Item = {};
    for (const key of Object.keys(raw)) {
      if (consumed.has(key)) continue;
      // a record's own "__proto__" is a key like any other (the schema names it); assigned, it would set the prototype
      if (key === '__proto__')
        Object.defineProperty(item, key, { value: (raw as Item)[key], enumerable: true, writable: true });
      else item[key] = (raw as Item)[key];
    }
    let problems: RecordIssue[] | undefined;
    const take = (value: unknown, read: CellReader, assign: Assign, target: string, where: string): boolean => {
      if (value === undefined || value === '') return false;
      const out =
        value === null
          ? null
          : typeof value === 'string'
            ? read(value.trim())
            : typeof value === 'number' || typeof value === 'boolean'
              ? read(String(value))
              : value;
      if (out === NOT_GIVEN) return false;
      if (out instanceof CellProblem)
        (problems ??= []).push({ path: target, message: `${out.message} (at "${where}")`, rule: out.rule });
      else assign(item, out);
      return true;
    };
    for (const rule of rules) {
      const value = valueAtPath(raw, rule.path);
      // not taken: absent, empty, or a cell "treatAsEmpty" lists (the last two are empty cells)
      if (!take(value, rule.read, rule.assign, rule.target, rule.key) && value !== undefined && rule.emptyAsNull)
        rule.assign(item, null);
    }
    for (const { rule, paths, assign, get, besideColumn } of fields) {
      if (besideColumn && get(item) !== undefined) continue;
      if (rule.value) assign(item, rule.value.value);
      else paths.some((path, i) => take(valueAtPath(raw, path), rule.read, assign, rule.path, rule.sources[i]!));
      if (rule.fallback && get(item) === undefined) assign(item, rule.fallback.value);
    }
    const memberId = memberIdText(item.memberId);
    const check = checkItem(item, 'json');
    if (check.ok && !problems) return { record, line, memberId, raw, valid: true, item: check.item };
    const seen = new Set(problems?.map((p) => p.path));
    const issues = sortByFieldOrder([
      ...(problems ?? []),
      ...(check.ok ? [] : check.issues.filter((i) => !seen.has(i.path))),
    ]);
    const omitted = omit.empty ? undefined : omit.apply(item, issues, 'json');
    if (omitted) return { record, line, memberId, raw, valid: true, ...omitted };
    return { record, line, memberId, raw, valid: false, issues };
  };
}

const isObject = (raw: unknown): raw is object => typeof raw === 'object' && raw !== null && !Array.isArray(raw);
const memberIdText = (id: unknown) => (typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined);

function notAnObject({ record, line, raw }: SourceRecord): Candidate {
  const issues = [
    { path: '', message: `expected a JSON object (one member), got ${describeValue(raw)}`, rule: 'not an object' },
  ];
  return { record, line, raw, valid: false, issues };
}
