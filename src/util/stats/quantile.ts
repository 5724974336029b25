/**
 * Empirical quantiles of sorted values: Hyndman & Fan (1996) definition 7, the default of R's
 * `quantile`, NumPy's `quantile` and Excel's PERCENTILE.INC: with h = (n − 1)·p (0-based),
 * Q(p) = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]). It never goes beyond the smallest or largest
 * value, so an extreme quantile of a small sample is the sample's minimum or maximum.
 */

/** Where definition 7 reads a quantile: x[index] + weight·(x[index + 1] − x[index]), weight in [0, 1). */
export interface QuantilePosition {
  readonly index: number;
  readonly weight: number;
}

/** The position of the p-quantile (0 ≤ p ≤ 1) among n ≥ 1 sorted values. */
export function quantilePosition(n: number, p: number): QuantilePosition {
  const h = (n - 1) * p;
  const index = Math.min(n - 1, Math.floor(h));
  return { index, weight: index === n - 1 ? 0 : h - index };
}

/** The p-quantile of `sorted` (ascending, at least one value), Hyndman–Fan definition 7. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const { index, weight } = quantilePosition(sorted.length, p);
  const low = sorted[index] as number;
  return weight === 0 ? low : low + weight * ((sorted[index + 1] as number) - low);
}
