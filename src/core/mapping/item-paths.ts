/**
 * Writing and reading one target in an item under construction. Containers are made on first use. A metadata or
 * customProperties map is a plain `{}` unless one of the mapping's keys is a name `{}` already has ("__proto__",
 * "toString"): then every map of that mapping has no prototype, so such keys are plain data (see MapKind).
 */
import type { FieldTarget } from './targets.js';

export type Item = Record<string, unknown>;
export type Assign = (item: Item, value: unknown) => void;

const containerOf = (target: FieldTarget): string | undefined => (target.kind === 'field' ? undefined : target.kind);
const leafOf = (target: FieldTarget): string =>
  target.kind === 'field' || target.kind === 'address' ? target.field : target.key;

/**
 * How metadata and customProperties maps are made for one mapping: `{}` (V8 keeps it a fast object: filled,
 * checked and written as JSON a good deal faster per row) when no key of theirs is a name Object.prototype has, else
 * without a prototype (a dictionary to V8), so that "__proto__" or "toString" is a key like any other.
 */
export type MapKind = 'plain' | 'bare';

export function mapKindFor(targets: Iterable<FieldTarget>): MapKind {
  for (const target of targets)
    if ((target.kind === 'metadata' || target.kind === 'customProperties') && target.key in Object.prototype)
      return 'bare';
  return 'plain';
}

export function assignerFor(target: FieldTarget, maps: MapKind = 'bare'): Assign {
  const leaf = leafOf(target);
  const container = containerOf(target);
  if (container === undefined) return (item, value) => void (item[leaf] = value);
  if (container === 'address') return (item, value) => void (((item.address ??= {}) as Item)[leaf] = value);
  if (maps === 'plain') return (item, value) => void (((item[container] ??= {}) as Item)[leaf] = value);
  return (item, value) => void (((item[container] ??= Object.create(null)) as Item)[leaf] = value);
}

export function getterFor(target: FieldTarget): (item: Item) => unknown {
  const leaf = leafOf(target);
  const container = containerOf(target);
  if (container === undefined) return (item) => item[leaf];
  return (item) => {
    const inner = item[container] as Item | undefined;
    return inner ? inner[leaf] : undefined;
  };
}

/** Takes the target out of an item (and its container, when that leaves it empty). */
export function removerFor(target: FieldTarget): (item: Item) => void {
  const leaf = leafOf(target);
  const container = containerOf(target);
  if (container === undefined) return (item) => void delete item[leaf];
  return (item) => {
    const inner = item[container] as Item | undefined;
    if (!inner) return;
    delete inner[leaf];
    if (Object.keys(inner).length === 0) delete item[container];
  };
}

/** The value at a dotted path in a parsed JSON record ("contact.emails.0"), own properties only; undefined when absent. */
export function valueAtPath(record: unknown, path: readonly string[]): unknown {
  let value = record;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
