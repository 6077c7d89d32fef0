/**
 * What a column can map to, and the lenient name matching shared by CSV headers and --map targets:
 * case, spaces, "_" and "-" are ignored; dotted names reach into address, metadata and customProperties.
 */
import type { Address, MemberUpsertItem } from '../../schemas/member.js';
import { ADDRESS_FIELDS, MEMBER_FIELDS } from '../../schemas/member-fields.js';

export type ScalarField = Exclude<keyof MemberUpsertItem, 'address' | 'metadata' | 'customProperties'>;
export type AddressField = keyof Address;
/** How a customProperties cell is read: kept as text (default), or parsed. */
export type CellType = 'string' | 'number' | 'boolean' | 'json';
export type FieldKind = 'string' | 'boolean' | 'date';

export type FieldTarget =
  | { kind: 'field'; field: ScalarField; type: FieldKind }
  | { kind: 'address'; field: AddressField }
  | { kind: 'metadata'; key: string }
  | { kind: 'customProperties'; key: string; type: CellType };

const BOOLEAN_FIELDS = new Set<string>(['isActive', 'isEmployee', 'deceased', 'isMembershipFeePaid']);
const DATE_FIELDS = new Set<string>(['birthdate', 'createdAt']);
const OBJECT_FIELDS = new Set<string>(['address', 'metadata', 'customProperties']);

export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

const SCALARS = new Map<string, ScalarField>(
  MEMBER_FIELDS.filter((f) => !OBJECT_FIELDS.has(f)).map((f) => [normalizeName(f), f as ScalarField]),
);
const ADDRESS = new Map<string, AddressField>(ADDRESS_FIELDS.map((f) => [normalizeName(f), f]));

export function fieldKind(field: ScalarField): FieldKind {
  return BOOLEAN_FIELDS.has(field) ? 'boolean' : DATE_FIELDS.has(field) ? 'date' : 'string';
}

/** Resolves a header or --map target to a target, or undefined when it names nothing the API knows. */
export function resolveFieldTarget(name: string, customType: CellType = 'string'): FieldTarget | undefined {
  const dot = name.indexOf('.');
  if (dot === -1) {
    const field = SCALARS.get(normalizeName(name));
    return field ? { kind: 'field', field, type: fieldKind(field) } : undefined;
  }
  const prefix = normalizeName(name.slice(0, dot));
  const rest = name.slice(dot + 1);
  if (prefix === 'address') {
    const field = ADDRESS.get(normalizeName(rest));
    return field ? { kind: 'address', field } : undefined;
  }
  // metadata / customProperties keys are the member's own data: kept exactly as written.
  if (rest.length === 0) return undefined;
  if (prefix === 'metadata') return { kind: 'metadata', key: rest };
  if (prefix === 'customproperties') return { kind: 'customProperties', key: rest, type: customType };
  return undefined;
}

/** The target's path in item terms: "email", "address.city", "metadata.tier". */
export function targetPath(target: FieldTarget): string {
  switch (target.kind) {
    case 'field':
      return target.field;
    case 'address':
      return `address.${target.field}`;
    default:
      return `${target.kind}.${target.key}`;
  }
}

/** True when the name is one of the object fields that only dotted columns can fill. */
export function isObjectFieldName(name: string): boolean {
  const n = normalizeName(name);
  return n === 'address' || n === 'metadata' || n === 'customproperties';
}

const SUGGESTIONS = [
  ...MEMBER_FIELDS.filter((f) => !OBJECT_FIELDS.has(f)),
  ...ADDRESS_FIELDS.map((f) => `address.${f}`),
  ...ADDRESS_FIELDS,
];

/** The closest known field to a name that matched nothing, when close enough to be a likely typo. */
export function closestField(name: string): string | undefined {
  const best = closestName(name, SUGGESTIONS);
  // a bare address field ("city") is suggested in its dotted form, the one that maps
  return best !== undefined && ADDRESS.has(normalizeName(best)) && !best.includes('.') ? `address.${best}` : best;
}

/**
 * The candidate nearest to a name by edit distance (a likely typo), or else the longest one of at least
 * 3 letters that contains it or is contained in it ("E-mail Address" → email, "zip" → zipCode).
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = normalizeName(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  const close = Math.max(2, Math.floor(wanted.length / 3));
  for (const candidate of candidates) {
    const d = editDistance(wanted, normalizeName(candidate), close);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  if (best !== undefined && bestDistance <= close) return best;
  best = undefined;
  let bestLength = 0;
  for (const candidate of candidates) {
    const n = normalizeName(candidate);
    const related = n.length >= 3 && wanted.length >= 3 && (wanted.includes(n) || n.includes(wanted));
    if (related && n.length > bestLength) [best, bestLength] = [candidate, n.length];
  }
  return best;
}

/**
 * Levenshtein distance (two rows; names are short). Above `limit` it may return any number above it: the lengths'
 * difference alone, without comparing letters (a broken file's header "name" can be megabytes long).
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return Math.abs(a.length - b.length);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
