/**
 * One shared gate for every upstream call: at most `concurrency` in flight, starts spaced to
 * `ratePerSecond` (a polite ceiling: the upstream publishes no rate limit). Each caller (a
 * collector) has a queue; free slots go round robin, and while others wait no caller holds more
 * than its share, so a slow endpoint cannot starve the others. Alone, a caller may use every slot.
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
}

/** Runs tasks under the shared concurrency limit and rate ceiling; FIFO within one key. */
export class Limiter {
  readonly #concurrency: number;
  readonly #timers: Timers;
  readonly #spacingMs: number;
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
  #share(): number {
    let busy = 0;
    for (const l of this.#lanes.values()) if (l.active > 0 || l.queue.length > 0) busy++;
    return Math.max(1, Math.floor(this.#concurrency / busy));
  }

  /** The next key in round-robin order with work, preferring keys under their share. */
  #pick(): Lane | undefined {
    const order = this.#order;
    const share = this.#share();
    let fallback: number | undefined;
    for (let i = 0; i < order.length; i++) {
      const idx = (this.#cursor + i) % order.length;
      const l = this.#lanes.get(order[idx]!)!;
      if (l.queue.length === 0) continue;
      if (l.active < share) {
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
