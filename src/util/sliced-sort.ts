/**
 * A stable sort that yields to the event loop between slices: sorting a few hundred thousand
 * records at once blocks the loop longer than a scrape may wait. Runs of `size` items are sorted
 * by the engine, then merged bottom-up, `size` items per slice: the order `Array.prototype.sort`
 * gives with the same comparator.
 */
import type { LoopYielder } from './loop-yield.ts';

/** How {@link sortInSlices} slices its work: `size` items (at least 1) between two yields. */
export interface SliceOptions {
  readonly yielder: LoopYielder;
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
  let from = await sortRuns(items, compare, { yielder, size: run });
  // A copy, not `new Array(n)`: V8 holds a new array of more than about 100,000 holes as a
  // dictionary, which makes every write of the merge a hash lookup.
  let to = items.slice();
  // The sort of the last run counts as this slice's work.
  let left = 0;
  for (let width = run; width < items.length; width *= 2) {
    for (let lo = 0; lo < items.length; lo += 2 * width) {
      const mid = Math.min(lo + width, items.length);
      const merge: Merge = { a: lo, b: mid, out: lo, mid, hi: Math.min(lo + 2 * width, items.length) };
      while (merge.out < merge.hi) {
        if (left === 0) {
          await yielder.yieldToLoop();
          left = run;
        }
        left -= mergeSome(from, to, compare, merge, left);
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** A copy of `items` with each run of `size` items sorted, one run per slice. */
async function sortRuns<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
  { yielder, size }: SliceOptions,
): Promise<T[]> {
  const runs = items.slice();
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await yielder.yieldToLoop();
    const sorted = items.slice(i, i + size).sort(compare);
    for (let k = 0; k < sorted.length; k++) runs[i + k] = sorted[k] as T;
  }
  return runs;
}

/** A merge of `from[a, mid)` and `from[b, hi)` into `to[out, hi)` in progress. */
interface Merge {
  a: number;
  b: number;
  out: number;
  readonly mid: number;
  readonly hi: number;
}

/** Merges up to `limit` items, left run first on ties; synchronous, so the engine optimises it. */
function mergeSome<T>(
  from: readonly T[],
  to: T[],
  compare: (a: T, b: T) => number,
  m: Merge,
  limit: number,
): number {
  let { a, b, out } = m;
  const { mid, hi } = m;
  const end = Math.min(hi, out + limit);
  const merged = end - out;
  while (out < end) {
    if (b >= hi || (a < mid && compare(from[a] as T, from[b] as T) <= 0)) to[out++] = from[a++] as T;
    else to[out++] = from[b++] as T;
  }
  m.a = a;
  m.b = b;
  m.out = out;
  return merged;
}
