/**
 * The sandbox's data: members, erased member ids and push subscriptions, all in Maps (O(1) per item, whatever
 * the size). A member is kept as its compact JSON text: a million members fit in a few hundred MB, and writing
 * the store to disk is a copy, not a re-serialisation.
 */
import type { MemberUpsertItem, SubscriptionRequest } from '../schemas/index.js';

export type UpsertOutcome = 'imported' | 'updated' | 'skipped';

export interface Subscription extends SubscriptionRequest {
  customerId: string;
  subscribedAt: string;
  updatedAt: string;
}

/** The sandbox's own skip rule (the seed shows no reasons): a member erased through the admin API stays erased. */
export const ERASED_REASON = 'member erased';

const subscriptionKey = (customerId: string, installationId: string) => `${customerId}\u0000${installationId}`;

export class SandboxStore {
  readonly members = new Map<string, string>();
  readonly erased = new Set<string>();
  readonly subscriptions = new Map<string, Subscription>();
  /** Bumped on every change, so persistence knows whether there is anything to write. */
  version = 0;
  /** Each change as one NDJSON line, for the append log (store-log.ts); unset without --data. */
  onChange: ((line: string) => void) | undefined;

  /**
   * Upsert semantics: an unknown memberId is imported as given; a known one is updated field by field:
   * a field the item leaves out keeps its stored value, a field sent as null is cleared (stored as null).
   * address merges the same way per address field; metadata and customProperties are replaced whole (one value).
   */
  upsert(item: MemberUpsertItem): UpsertOutcome {
    if (this.erased.has(item.memberId)) return 'skipped';
    const stored = this.members.get(item.memberId);
    this.version++;
    if (stored === undefined) {
      this.#set(item.memberId, JSON.stringify(item));
      return 'imported';
    }
    const current = JSON.parse(stored) as MemberUpsertItem;
    const merged: Record<string, unknown> = { ...current };
    for (const [key, value] of Object.entries(item)) {
      if (value === undefined) continue;
      merged[key] = key === 'address' ? { ...(current.address ?? {}), ...stripUndefined(value as object) } : value;
    }
    this.#set(item.memberId, JSON.stringify(merged));
    return 'updated';
  }

  #set(memberId: string, json: string): void {
    this.members.set(memberId, json);
    this.onChange?.(`{"member":${json}}\n`);
  }

  getMember(memberId: string): MemberUpsertItem | undefined {
    const stored = this.members.get(memberId);
    return stored === undefined ? undefined : (JSON.parse(stored) as MemberUpsertItem);
  }

  /** Erase: the member is gone and later imports of its id are skipped. Works for ids never imported too. */
  erase(memberId: string): boolean {
    const existed = this.members.delete(memberId);
    this.erased.add(memberId);
    this.version++;
    this.onChange?.(`${JSON.stringify({ erased: memberId })}\n`);
    return existed;
  }

  /** Subscribing again for the same customer and installation replaces the earlier subscription (idempotent). */
  subscribe(customerId: string, request: SubscriptionRequest, now = new Date()): 'created' | 'replaced' {
    const key = subscriptionKey(customerId, request.installationId);
    const earlier = this.subscriptions.get(key);
    const at = now.toISOString();
    const subscription: Subscription = {
      customerId,
      installationId: request.installationId,
      tokenHandle: request.tokenHandle,
      platform: request.platform,
      subscribedAt: earlier?.subscribedAt ?? at,
      updatedAt: at,
    };
    this.subscriptions.set(key, subscription);
    this.version++;
    this.onChange?.(`${JSON.stringify({ subscription })}\n`);
    return earlier ? 'replaced' : 'created';
  }

  restoreSubscription(subscription: Subscription): void {
    this.subscriptions.set(subscriptionKey(subscription.customerId, subscription.installationId), subscription);
  }

  clear(): void {
    this.members.clear();
    this.erased.clear();
    this.subscriptions.clear();
    this.version++;
    this.onChange?.('{"reset":true}\n');
  }
}

function stripUndefined(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
