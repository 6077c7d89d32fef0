/**
 * `subscribe`'s use case: send one prepared subscription through the push client and say what became of it,
 * and which result category that is (the command line maps it to an exit code).
 */
import { PushApiClient, formatProblem, type PushApiOptions, type SubscribeResponse } from '../../http/push-api.js';
import { pushRetryPolicy } from '../../http/retry-policy.js';
import { gaveUpText } from '../../http/failure.js';
import type { ResultCategory } from '../../errors.js';
import type { Platform, ProblemDetails } from '../../schemas/index.js';
import type { PreparedSubscription } from './input.js';

export {
  checkSubscription,
  draftProblems,
  missingFields,
  tokenWarnings,
  cleanToken,
  fieldProblem,
  DRAFT_FIELDS,
  FIELD_LIMITS,
  APNS_HEX_DIGITS,
} from './input.js';
export type { SubscriptionDraft, PreparedSubscription, SubscriptionProblem, CheckedSubscription } from './input.js';
export { normalizePlatform, suggestPlatform } from './platforms.js';

/** Where and how to send: the push client's own options (retry defaults to the push policy). */
export type SubscribeTarget = PushApiOptions;

export type SubscribeOutcome =
  | {
      kind: 'subscribed';
      status: number;
      customerId: string;
      installationId: string;
      platform: Platform;
      retries: number;
    }
  | { kind: 'refused'; status: number; problem: ProblemDetails }
  | { kind: 'credentials'; status: number; problem: ProblemDetails }
  /** `reachedServer` false: no request reached the server (host not found, connection refused), so nothing was stored. */
  | {
      kind: 'not-confirmed';
      status?: number;
      problem: ProblemDetails;
      retries: number;
      reachedServer: boolean;
      /** The server's Retry-After (429, 503) when it asked for a wait longer than memberctl waits. */
      retryAfterMs?: number;
    };

const CATEGORY: Record<SubscribeOutcome['kind'], ResultCategory> = {
  subscribed: 'ok',
  refused: 'partial',
  'not-confirmed': 'not-confirmed',
  credentials: 'credentials',
};

export function subscribeCategory(outcome: SubscribeOutcome): ResultCategory {
  return CATEGORY[outcome.kind];
}

export async function sendSubscription(
  target: SubscribeTarget,
  prepared: PreparedSubscription,
  signal?: AbortSignal,
): Promise<SubscribeOutcome> {
  const client = new PushApiClient({ ...target, retry: target.retry ?? pushRetryPolicy() });
  const onAbort = () => void client.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await client.subscribe(prepared.customerId, prepared.request, signal);
    return toOutcome(response, prepared, client.stats.retries, signal?.aborted ?? false);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await client.close().catch(() => undefined);
  }
}

/** `interrupted`: the caller's signal stopped the run (Ctrl-C); the outcome says so, from the cause, not by editing text. */
function toOutcome(
  response: SubscribeResponse,
  prepared: PreparedSubscription,
  retries: number,
  interrupted: boolean,
): SubscribeOutcome {
  switch (response.kind) {
    case 'ok':
      return {
        kind: 'subscribed',
        status: response.status,
        customerId: prepared.customerId,
        installationId: prepared.request.installationId,
        platform: prepared.request.platform,
        retries,
      };
    case 'problem':
      return { kind: 'refused', status: response.status, problem: response.problem };
    case 'auth':
      return {
        kind: 'credentials',
        status: response.status,
        problem: response.problem ?? { title: 'Unauthorized', status: response.status, detail: response.message },
      };
    case 'failed': {
      // Keep the server's problem when there was one; say plainly why there is no confirmation either way.
      const { cause, retries, status } = response;
      const notConfirmed = {
        kind: 'not-confirmed',
        status,
        retries,
        reachedServer: cause.reachedServer,
        ...(cause.retryAfterMs === undefined ? {} : { retryAfterMs: cause.retryAfterMs }),
      } as const;
      const gaveUp = cause.gaveUp ? gaveUpText(retries) : undefined;
      const stopped =
        cause.kind === 'stopped' ? `${interrupted ? 'interrupted' : 'stopped'} before the next retry` : undefined;
      const alsoInterrupted = interrupted && !stopped ? 'interrupted' : undefined;
      if (!response.problem) {
        // title "HTTP 502", detail "<summary>; gave up after 3 retries"
        const title = status === undefined ? 'Not confirmed' : `HTTP ${status}`;
        return {
          ...notConfirmed,
          problem: {
            title,
            status,
            detail: [response.detail, gaveUp, interrupted ? 'interrupted' : undefined].filter(Boolean).join('; '),
          },
        };
      }
      const why = stopped ?? gaveUp;
      const detail = [why ? response.problem.detail?.replace(/\.$/, '') : response.problem.detail, why, alsoInterrupted]
        .filter(Boolean)
        .join('; ');
      return { ...notConfirmed, problem: { ...response.problem, detail } };
    }
  }
}

/** "title: detail (status)". */
export { formatProblem };
