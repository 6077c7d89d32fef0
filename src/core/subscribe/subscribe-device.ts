/**
 * `subscribe`'s one entry point, as `importFile` and `validateFile` are theirs: a gathered draft in (flags, --from
 * blob), missing values asked for through a port, the draft checked, the request sent through the push client, and a
 * report out that carries its result category. Terminals, Ctrl-C and words stay with the caller: prompting is the
 * `ask` port, process signals the `watchStop` port, and every problem travels as data.
 */
import type { ResultCategory } from '../../errors.js';
import type { RetryInfo } from '../../http/transport.js';
import { checkSubscription, missingFields, type SubscriptionDraft, type SubscriptionProblem } from './input.js';
import { sendSubscription, subscribeCategory, type SubscribeOutcome, type SubscribeTarget } from './index.js';

export interface SubscribeRequest {
  /** What the flags and the --from blob gave (values may be missing; `ask` may fill them). */
  draft: SubscriptionDraft;
  /** --clean-token: strip copy-paste debris from the device token before checking and sending. */
  cleanToken?: boolean;
  /** Where and how to send (the push client's options; retry defaults to the push policy). */
  target: Omit<SubscribeTarget, 'onRetry'>;
}

export interface SubscribePorts {
  /** Asks for the values the draft lacks; 'cancelled' when the person gave up (nothing is sent). Absent: never asks. */
  ask?: (draft: SubscriptionDraft) => Promise<SubscriptionDraft | 'cancelled'>;
  /** Called when the request is about to go: `stop` aborts it; the returned function stops watching. */
  watchStop?: (stop: () => void) => () => void;
}

/** What happens along the way, in order: warnings about the values, the cleaned token, the send, each retry. */
export type SubscribeEvent =
  | { type: 'warning'; message: string }
  /** `automatic`: an APNs token in the old description format, cleaned without --clean-token (input.ts). */
  | { type: 'cleaned-token'; token: string; automatic: boolean }
  | { type: 'sending' }
  | { type: 'retry'; info: RetryInfo };

export type SubscribeListener = (event: SubscribeEvent) => void;

export type SubscribeReport =
  | (SubscribeOutcome & { category: ResultCategory })
  /** The draft failed its checks (every problem at once); nothing was sent. */
  | { kind: 'invalid'; problems: SubscriptionProblem[]; category: 'usage' }
  /** The person cancelled while asked for a value; nothing was sent. */
  | { kind: 'cancelled'; category: 'cancelled' };

export async function subscribeDevice(
  request: SubscribeRequest,
  ports: SubscribePorts = {},
  onEvent: SubscribeListener = () => undefined,
): Promise<SubscribeReport> {
  let draft = request.draft;
  if (ports.ask && missingFields(draft).length > 0) {
    const answered = await ports.ask(draft);
    if (answered === 'cancelled') return { kind: 'cancelled', category: 'cancelled' };
    draft = answered;
  }
  const checked = checkSubscription(draft, { cleanToken: request.cleanToken });
  if (checked.kind === 'invalid') return { kind: 'invalid', problems: checked.problems, category: 'usage' };
  for (const message of checked.warnings) onEvent({ type: 'warning', message });
  if (checked.cleanedFrom !== undefined)
    onEvent({ type: 'cleaned-token', token: checked.request.tokenHandle, automatic: !request.cleanToken });
  onEvent({ type: 'sending' });
  const stop = new AbortController();
  const unwatch = ports.watchStop?.(() => stop.abort());
  try {
    const outcome = await sendSubscription(
      { ...request.target, onRetry: (info) => onEvent({ type: 'retry', info }) },
      checked,
      stop.signal,
    );
    return { ...outcome, category: subscribeCategory(outcome) };
  } finally {
    unwatch?.();
  }
}
