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

interface Lane {
  readonly queue: Array<() => void>;
  active: number;
}

/** What {@link Limiter} is built with. */
export interface LimiterOptions {
  readonly concurrency: number;
  readonly ratePerSecond: number;
  readonly timers?: Timers;
  /** Relative weight of a key's share; 1 for keys not listed. */
  readonly weights?: Readonly<Record<string, number>>;
}

/**
 * Runs tasks under the shared concurrency limit and rate ceiling. Within one key, FIFO:
 * requests start in the order they were queued.
 */
export class Limiter {
  readonly #concurrency: number;
  readonly #timers: Timers;
  readonly #spacingMs: number;
  readonly #weights: Readonly<Record<string, number>> | undefined;
  readonly #lanes = new Map<string, Lane>();
  #order: string[] = [];
  #cursor = 0;
  #active = 0;
  #pending = 0;
  #nextStartAt = 0;
  #timerArmed = false;

  constructor(opts: LimiterOptions) {
    this.#concurrency = opts.concurrency;
    this.#timers = opts.timers ?? realTimers;
    this.#spacingMs = 1000 / opts.ratePerSecond;
    this.#weights = opts.weights;
  }

  /** Requests waiting for a slot. */
  get pending(): number {
    return this.#pending;
  }

  /** Requests in flight. */
  get active(): number {
    return this.#active;
  }

  /** Requests in flight for one key. */
  activeOf(key: string): number {
    return this.#lanes.get(key)?.active ?? 0;
  }

  /** Runs `task` in `key`'s queue (default `shared`). */
  run<T>(task: () => Promise<T>, key = 'shared'): Promise<T> {
    const l = this.#lane(key);
    return new Promise<T>((resolve, reject) => {
      l.queue.push(() => {
        task()
          .then(resolve, reject)
          .finally(() => {
            this.#active--;
            l.active--;
            this.#pump();
          });
      });
      this.#pending++;
      this.#pump();
    });
  }

  #weight(key: string): number {
    return this.#weights?.[key] ?? 1;
  }

  #lane(key: string): Lane {
    let l = this.#lanes.get(key);
    if (!l) {
      l = { queue: [], active: 0 };
      this.#lanes.set(key, l);
      this.#order = [...this.#lanes.keys()];
    }
    return l;
  }

  /** A key's share of the slots among the keys that have work now. */
  #share(key: string): number {
    let total = 0;
    for (const [k, l] of this.#lanes) if (l.active > 0 || l.queue.length > 0) total += this.#weight(k);
    return Math.max(1, Math.floor((this.#concurrency * this.#weight(key)) / total));
  }

  /** The next key in round-robin order with work, preferring keys under their share. */
  #pick(): Lane | undefined {
    const order = this.#order;
    let fallback: number | undefined;
    for (let i = 0; i < order.length; i++) {
      const idx = (this.#cursor + i) % order.length;
      const key = order[idx]!;
      const l = this.#lanes.get(key)!;
      if (l.queue.length === 0) continue;
      if (l.active < this.#share(key)) {
        this.#cursor = idx + 1;
        return l;
      }
      fallback ??= idx;
    }
    // Only keys at their share have work: a free slot is better used than kept idle.
    if (fallback === undefined) return undefined;
    this.#cursor = fallback + 1;
    return this.#lanes.get(order[fallback]!);
  }

  #pump(): void {
    while (this.#active < this.#concurrency && this.#pending > 0) {
      const now = this.#timers.now();
      if (now < this.#nextStartAt) {
        this.#armTimer(this.#nextStartAt - now);
        return;
      }
      const l = this.#pick();
      if (!l) return;
      this.#nextStartAt = Math.max(now, this.#nextStartAt) + this.#spacingMs;
      this.#active++;
      this.#pending--;
      l.active++;
      l.queue.shift()?.();
    }
  }

  #armTimer(ms: number): void {
    if (this.#timerArmed) return;
    this.#timerArmed = true;
    this.#timers.setTimeout(() => {
      this.#timerArmed = false;
      this.#pump();
    }, ms);
  }
}
