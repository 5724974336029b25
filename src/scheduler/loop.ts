/**
 * Runs one job every interval, with a little jitter so that collectors do not poll in lock-step.
 * Runs never overlap: one that overruns is followed right away by the next.
 */

/** Timer functions, injectable so tests control time. */
export interface LoopTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realLoopTimers: LoopTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface LoopOptions {
  readonly intervalMs: number;
  readonly run: (signal: AbortSignal) => Promise<void>;
  readonly timers?: LoopTimers;
  /** Returns a number in [0, 1); the wait is spread by ±5 % of the interval. */
  readonly random?: () => number;
  /** Delay before the first run; default 0. */
  readonly initialDelayMs?: number;
}

/** A running loop. `stop` aborts the current run and resolves when it has ended. */
export interface Loop {
  stop(): Promise<void>;
  /** Schedules no further run and waits for the current one to end, without aborting it. */
  drain(): Promise<void>;
}

/** Starts a loop. Errors thrown by `run` are the job's own business: the loop goes on. */
export function startLoop(opts: LoopOptions): Loop {
  const timers = opts.timers ?? realLoopTimers;
  const random = opts.random ?? Math.random;
  const controller = new AbortController();
  let handle: unknown;
  let current: Promise<void> | undefined;
  let draining = false;

  const tick = (): void => {
    handle = undefined;
    const started = timers.now();
    current = opts
      .run(controller.signal)
      .catch(() => undefined)
      .then(() => {
        current = undefined;
        if (controller.signal.aborted || draining) return;
        const jitter = (random() * 2 - 1) * 0.05 * opts.intervalMs;
        const wait = Math.max(0, opts.intervalMs - (timers.now() - started) + jitter);
        handle = timers.setTimeout(tick, wait);
      });
  };
  handle = timers.setTimeout(tick, opts.initialDelayMs ?? 0);

  return {
    async stop() {
      controller.abort();
      if (handle !== undefined) timers.clearTimeout(handle);
      await current;
    },
    async drain() {
      draining = true;
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
      await current;
      controller.abort();
    },
  };
}

/** Waits `ms`, or less when `signal` aborts first. */
export function abortableSleep(timers: LoopTimers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const handle = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      timers.clearTimeout(handle);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
