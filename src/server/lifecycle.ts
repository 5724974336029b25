/** Helpers for the lifecycle API (`/-/reload`). */

/** Runs `fn` at most once at a time: a loop of reload requests costs one reload, not one each. */
export function singleFlight<T>(fn: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    if (running) return running;
    const run = fn().finally(() => {
      running = undefined;
    });
    running = run;
    return run;
  };
}

/** What Prometheus answers when its lifecycle API is off; kept word for word for operators' scripts. */
export const LIFECYCLE_DISABLED = 'Lifecycle API is not enabled.';
