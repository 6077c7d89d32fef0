/** The longest one timer can wait: node fires a longer one after 1 ms (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timer an abort cancels: resolves true after `ms`, or false as soon as `signal` aborts (no dangling timer).
 * A wait beyond what one timer holds (24.8 days) resolves after that: callers that need longer loop (PauseGate).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, ms)),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Aborts when any of the given signals aborts (AbortSignal.any, tolerant of undefined entries). */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
