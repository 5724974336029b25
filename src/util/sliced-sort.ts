/**
 * A stable sort that gives the event loop a turn between slices of its work: sorting a few
 * hundred thousand records at once blocks the loop for a hundred milliseconds or more, longer
 * than a scrape may wait. Runs of `size` items are sorted by the engine's own (stable) sort,
 * then merged pairwise, bottom-up, `size` items per turn. The order is exactly the one
 * `Array.prototype.sort` gives with the same comparator: equal items keep their input order.
 */
import type { LoopYielder } from './loop-yield.ts';

/** How {@link sortInSlices} slices its work. */
export interface SliceOptions {
  readonly yielder: LoopYielder;
  /** Items sorted or merged between two turns of the event loop; at least 1. */
  readonly size: number;
}

/**
 * Returns `items` sorted by `compare`, stably. `items` itself is sorted in place when it fits in one
 * slice, and left as it was otherwise (the result is then a new array).
 */
export async function sortInSlices<T>(
  items: T[],
  compare: (a: T, b: T) => number,
  { yielder, size }: SliceOptions,
): Promise<T[]> {
  const run = Math.max(1, Math.floor(size));
  if (items.length <= run) return items.sort(compare);
  let from: T[] = [];
  for (let i = 0; i < items.length; i += run) {
    if (i > 0) await yielder.yieldToLoop();
    for (const x of items.slice(i, i + run).sort(compare)) from.push(x);
  }
  let to: T[] = new Array(items.length);
  // The sort of the last run counts as this turn's work.
  const budget = { left: 0, size: run };
  for (let width = run; width < items.length; width *= 2) {
    for (let lo = 0; lo < items.length; lo += 2 * width) {
      const mid = Math.min(lo + width, items.length);
      const hi = Math.min(lo + 2 * width, items.length);
      await mergeRuns({ from, to, compare, yielder, budget }, lo, mid, hi);
    }
    [from, to] = [to, from];
  }
  return from;
}

/** One merge's arrays, comparator and the items left before the next turn. */
interface Merge<T> {
  readonly from: readonly T[];
  readonly to: T[];
  readonly compare: (a: T, b: T) => number;
  readonly yielder: LoopYielder;
  /** Items merged since the last turn may reach `size`; `left` of them remain. */
  readonly budget: { left: number; readonly size: number };
}

/** Merges `from[lo, mid)` and `from[mid, hi)` into `to[lo, hi)`, the left run first on ties. */
async function mergeRuns<T>(m: Merge<T>, lo: number, mid: number, hi: number): Promise<void> {
  const { from, to, compare } = m;
  let a = lo;
  let b = mid;
  for (let out = lo; out < hi; out++) {
    if (m.budget.left === 0) {
      await m.yielder.yieldToLoop();
      m.budget.left = m.budget.size;
    }
    m.budget.left--;
    if (b >= hi || (a < mid && compare(from[a] as T, from[b] as T) <= 0)) to[out] = from[a++] as T;
    else to[out] = from[b++] as T;
  }
}
