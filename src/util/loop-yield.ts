/**
 * Cooperative scheduling: CPU-heavy loops yield every few thousand items, so a scrape never waits
 * long behind a poll. One {@link LoopYielder} is shared by the client, the collectors and the
 * renderer, so that their slices alternate instead of running back to back.
 */

/** Yields to the event loop, in order: one per exporter, shared by everything it runs. */
export class LoopYielder {
  /** The latest yield handed out: the next one resolves after it. */
  #lastYield: Promise<void> = Promise.resolve();

  /**
   * Resolves on a later event-loop iteration, after pending I/O and timers; yields resolve one per
   * iteration, in order, so several answers' parsing alternates instead of forming one block.
   */
  yieldToLoop(): Promise<void> {
    const next = this.#lastYield.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.#lastYield = next;
    return next;
  }

  /** Calls `fn` on slices of `items` of at most `size`, yielding between slices. */
  async forEachSlice<T>(items: readonly T[], size: number, fn: (slice: readonly T[]) => void): Promise<void> {
    for (let i = 0; i < items.length; i += size) {
      if (i > 0) await this.yieldToLoop();
      fn(i === 0 && items.length <= size ? items : items.slice(i, i + size));
    }
  }

  /** Maps `items` in order, yielding every `every` items. */
  async map<T, U>(items: readonly T[], every: number, fn: (item: T) => U): Promise<U[]> {
    const out: U[] = [];
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % every === 0) await this.yieldToLoop();
      out.push(fn(items[i] as T));
    }
    return out;
  }
}
