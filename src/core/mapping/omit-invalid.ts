/**
 * `"onInvalid": "omit"` (issue 24 item 5): a record whose only problems are in fields whose rule says "omit" is
 * sent without those fields, whether their rule refused the cell (a phone libphonenumber calls unassigned) or the
 * API's schema did (an e-mail over 256 characters). Each field left out is kept on the candidate (`omitted`), so
 * that validate and import count it ("phone: 69 cells not sent"). A record with any other problem stays invalid,
 * with all of its problems listed, the omittable ones too: it is fixed and sent whole, or not at all.
 */
import type { RecordIssue } from '../candidate.js';
import type { MemberUpsertItem } from '../../schemas/index.js';
import type { InputKind } from './issues.js';
import { removerFor, type Item } from './item-paths.js';
import type { FieldTarget } from './targets.js';
import { checkItem } from './validate-item.js';
import { shortened } from './quote-cell.js';

export interface Omitted {
  item: MemberUpsertItem;
  omitted: RecordIssue[];
}

export class OmitRules {
  readonly #removers = new Map<string, (item: Item) => void>();

  /** `targets`: each field path fed by a rule with "onInvalid": "omit". */
  constructor(targets: Iterable<{ path: string; target: FieldTarget }>) {
    // an issue names a key past 64 characters cut (issues.ts formatPath): such a target is found by that name too
    for (const { path, target } of targets) {
      this.#removers.set(path, removerFor(target));
      this.#removers.set(path.split('.').map(shortened).join('.'), removerFor(target));
    }
  }

  get empty(): boolean {
    return this.#removers.size === 0;
  }

  /** The item without the omittable fields the issues name, valid; undefined when any other problem remains. */
  apply(item: Item, issues: readonly RecordIssue[], kind: InputKind): Omitted | undefined {
    const byPath = new Map<string, RecordIssue>();
    for (const issue of issues) {
      const path = this.#pathOf(issue.path);
      if (path === undefined) return undefined;
      if (!byPath.has(path)) byPath.set(path, { ...issue, path });
    }
    for (const path of byPath.keys()) this.#removers.get(path)!(item);
    const check = checkItem(item, kind);
    return check.ok ? { item: check.item, omitted: [...byPath.values()] } : undefined;
  }

  /** The omittable field an issue is about: its own path, or one it lies under (customProperties.x.y). */
  #pathOf(issuePath: string): string | undefined {
    if (this.#removers.has(issuePath)) return issuePath;
    for (const path of this.#removers.keys()) if (issuePath.startsWith(`${path}.`)) return path;
    return undefined;
  }
}
