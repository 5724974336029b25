/**
 * Cooperative scheduling for CPU-heavy loops: a scrape must never wait behind a poll's
 * parsing or statistics for long, so such loops give the event loop a turn every few
 * thousand items.
 */

let lastTurn: Promise<void> = Promise.resolve();

/**
 * Resolves on a later turn of the event loop, after pending I/O callbacks and timers. Turns
 * are handed out one per loop iteration, in order: when several answers arrive together,
 * their parsing runs one slice per iteration instead of back to back in one long block.
 */
export function yieldToLoop(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

/** Calls `fn` on slices of `items` of at most `size`, yielding to the event loop between slices. */
export async function forEachSlice<T>(
  items: readonly T[],
  size: number,
  fn: (slice: readonly T[]) => void,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await yieldToLoop();
    fn(i === 0 && items.length <= size ? items : items.slice(i, i + size));
  }
}

/** Maps `items` in order, yielding to the event loop every `every` items. */
export async function mapCooperatively<T, U>(
  items: readonly T[],
  every: number,
  fn: (item: T) => U,
): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % every === 0) await yieldToLoop();
    out.push(fn(items[i] as T));
  }
  return out;
}
