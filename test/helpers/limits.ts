/**
 * I-MR limits from an array of baseline points, for tests: the points go into production's
 * baseline sums ({@link addPoint}, {@link addPair}) and the limits come from
 * {@link limitsFromSums}, as a chart's baseline feeds them point by point.
 */
import {
  addPair,
  addPoint,
  type BaselineOptions,
  type BaselineSums,
  emptySums,
  type LimitsResult,
  limitsFromSums,
  type Pair,
} from '../../src/spc/limits.ts';

/** Index ranges `[start, end)` of a baseline to leave out (the points of a held shift). */
interface BaselineGap {
  readonly start: number;
  readonly end: number;
}

/** Adds `values[from..to)` to the sums, as deviations from `first`. */
function addSegment(
  values: ArrayLike<number>,
  segment: { readonly from: number; readonly to: number; readonly first: number },
  s: BaselineSums,
): void {
  const { from, to, first } = segment;
  const pair: Pair = { x: 0, y: 0, prev: Number.NaN, py: 0 };
  for (let i = from; i < to; i++) {
    const x = values[i]!;
    const y = x - first;
    addPoint(s, x, y);
    if (i > from) {
      pair.x = x;
      pair.y = y;
      pair.py = pair.prev - first;
      addPair(s, pair);
    }
    pair.prev = x;
  }
}

/**
 * I-MR limits from the baseline points `values[start..end)` (time order matters: the moving
 * ranges are differences of neighbours), leaving out the `gaps` (index ranges, ascending and
 * disjoint; no moving range spans one). See {@link limitsFromSums} for what they need.
 */
export function limitsFromBaseline(
  values: ArrayLike<number>,
  span: { readonly start: number; readonly end: number },
  options: BaselineOptions & { readonly gaps?: readonly BaselineGap[] },
): LimitsResult {
  const { start, end } = span;
  const { gaps = [] } = options;
  const s = emptySums();
  // Summed as deviations from the first point, so that a large offset (1e12 + a spread of
  // 0.001) keeps the centre to well under a sigma; a plain sum would round it to about 1e-4.
  let from = start;
  let first = Number.NaN;
  for (const gap of [...gaps, { start: end, end }]) {
    const to = Math.min(end, Math.max(from, gap.start));
    if (to > from) {
      if (Number.isNaN(first)) first = values[from]!;
      addSegment(values, { from, to, first }, s);
    }
    from = Math.max(from, gap.end);
  }
  return limitsFromSums(s, { ...options, anchor: first });
}
