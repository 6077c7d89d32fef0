/**
 * Ctrl-C and SIGTERM during an import: the first asks the run to stop gracefully (nothing new is sent, requests in
 * flight settle within the grace period, the summary still adds up); a second one stops at once. Only the command
 * line installs handlers; the core sees AbortSignals.
 */
export interface StopSignals {
  /** Aborted on the first SIGINT / SIGTERM. */
  stop: AbortSignal;
  /** Aborted on the second. */
  abort: AbortSignal;
  /** Removes the handlers (the default behaviour returns: a later Ctrl-C kills the process). */
  dispose(): void;
}

export function installStopSignals(onSignal: (count: number, signal: NodeJS.Signals) => void): StopSignals {
  const stop = new AbortController();
  const abort = new AbortController();
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) stop.abort();
    else abort.abort();
    onSignal(count, signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stop: stop.signal,
    abort: abort.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
