/**
 * One shared gate for every upstream call: at most `concurrency` requests in flight and
 * request starts spaced so that no more than `ratePerSecond` begin in any second. The
 * upstream publishes no rate limit, so this is a polite ceiling, not a negotiated one.
 */

/** Timer functions, injectable so tests need no real waiting. */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
}

const realTimers: Timers = { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms) };

/** Runs tasks under the shared concurrency limit and rate ceiling. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Requests waiting for a slot. */
  readonly pending: number;
  /** Requests in flight. */
  readonly active: number;
}

/** Creates a limiter. FIFO: requests start in the order they were queued. */
export function createLimiter(opts: {
  concurrency: number;
  ratePerSecond: number;
  timers?: Timers;
}): Limiter {
  const timers = opts.timers ?? realTimers;
  const spacingMs = 1000 / opts.ratePerSecond;
  const queue: Array<() => void> = [];
  let active = 0;
  let nextStartAt = 0;
  let timerArmed = false;

  const pump = (): void => {
    while (active < opts.concurrency && queue.length > 0) {
      const now = timers.now();
      if (now < nextStartAt) {
        if (!timerArmed) {
          timerArmed = true;
          timers.setTimeout(() => {
            timerArmed = false;
            pump();
          }, nextStartAt - now);
        }
        return;
      }
      nextStartAt = Math.max(now, nextStartAt) + spacingMs;
      active++;
      queue.shift()?.();
    }
  };

  return {
    get pending() {
      return queue.length;
    },
    get active() {
      return active;
    },
    run<T>(task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push(() => {
          task()
            .then(resolve, reject)
            .finally(() => {
              active--;
              pump();
            });
        });
        pump();
      });
    },
  };
}
