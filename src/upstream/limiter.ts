/**
 * One shared gate for every upstream call: at most `concurrency` requests in flight and
 * request starts spaced so that no more than `ratePerSecond` begin in any second. The
 * upstream publishes no rate limit, so this is a polite ceiling, not a negotiated one.
 *
 * Fair share: each caller (a collector) has a queue of its own. Free slots go round robin to
 * the queues with work, and while others wait no caller holds more than its weighted share of
 * the concurrency, so a slow or failing endpoint cannot starve the others. Alone, a caller may
 * use every slot.
 */

/** Timer functions, injectable so tests need no real waiting. */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
}

const realTimers: Timers = { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms) };

/** Runs tasks under the shared concurrency limit and rate ceiling. */
export interface Limiter {
  /** Runs `task` in `key`'s queue (default `shared`). */
  run<T>(task: () => Promise<T>, key?: string): Promise<T>;
  /** Requests waiting for a slot. */
  readonly pending: number;
  /** Requests in flight. */
  readonly active: number;
  /** Requests in flight for one key. */
  activeOf(key: string): number;
}

interface Lane {
  readonly queue: Array<() => void>;
  active: number;
}

/** Creates a limiter. Within one key, FIFO: requests start in the order they were queued. */
export function createLimiter(opts: {
  concurrency: number;
  ratePerSecond: number;
  timers?: Timers;
  /** Relative weight of a key's share; 1 for keys not listed. */
  weights?: Readonly<Record<string, number>>;
}): Limiter {
  const timers = opts.timers ?? realTimers;
  const spacingMs = 1000 / opts.ratePerSecond;
  const lanes = new Map<string, Lane>();
  let order: string[] = [];
  let cursor = 0;
  let active = 0;
  let pending = 0;
  let nextStartAt = 0;
  let timerArmed = false;
  const weight = (k: string) => opts.weights?.[k] ?? 1;

  const lane = (key: string): Lane => {
    let l = lanes.get(key);
    if (!l) {
      l = { queue: [], active: 0 };
      lanes.set(key, l);
      order = [...lanes.keys()];
    }
    return l;
  };

  /** A key's share of the slots among the keys that have work now. */
  const share = (key: string): number => {
    let total = 0;
    for (const [k, l] of lanes) if (l.active > 0 || l.queue.length > 0) total += weight(k);
    return Math.max(1, Math.floor((opts.concurrency * weight(key)) / total));
  };

  /** The next key in round-robin order with work, preferring keys under their share. */
  const pick = (): Lane | undefined => {
    let fallback: number | undefined;
    for (let i = 0; i < order.length; i++) {
      const idx = (cursor + i) % order.length;
      const key = order[idx]!;
      const l = lanes.get(key)!;
      if (l.queue.length === 0) continue;
      if (l.active < share(key)) {
        cursor = idx + 1;
        return l;
      }
      fallback ??= idx;
    }
    // Only keys at their share have work: a free slot is better used than kept idle.
    if (fallback === undefined) return undefined;
    cursor = fallback + 1;
    return lanes.get(order[fallback]!);
  };

  const pump = (): void => {
    while (active < opts.concurrency && pending > 0) {
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
      const l = pick();
      if (!l) return;
      nextStartAt = Math.max(now, nextStartAt) + spacingMs;
      active++;
      pending--;
      l.active++;
      l.queue.shift()?.();
    }
  };

  return {
    get pending() {
      return pending;
    },
    get active() {
      return active;
    },
    activeOf: (key) => lanes.get(key)?.active ?? 0,
    run<T>(task: () => Promise<T>, key = 'shared'): Promise<T> {
      const l = lane(key);
      return new Promise<T>((resolve, reject) => {
        l.queue.push(() => {
          task()
            .then(resolve, reject)
            .finally(() => {
              active--;
              l.active--;
              pump();
            });
        });
        pending++;
        pump();
      });
    },
  };
}
