/**
 * Sufficient statistics of a baseline as deviations y = x − anchor (in their own module so the
 * limits and the calibration need not import each other): every limit, φ and guard follows from
 * them, so a chart can keep them per time bucket instead of the points.
 */
export interface BaselineSums {
  n: number;
  sum: number;
  squares: number;
  /** Σy³: the baseline's skewness, for the detectors' calibration. */
  cubes: number;
  /** Σy⁴: the baseline's kurtosis, for the fast CUSUM's calibration to heavy tails. */
  quartics: number;
  /** Median skewness of the whole time buckets, and their count: robust to one wild value. */
  bucketSkewness: number;
  skewBuckets: number;
  /** Median excess kurtosis of the same buckets, and their mean number of points. */
  bucketKurtosis: number;
  bucketPoints: number;
  /** Neighbour pairs (the first point of a segment has no neighbour before it). */
  pairs: number;
  mrSum: number;
  /** Σ y_i y_{i−1}, Σ y_{i−1} and Σ y_i over the pairs: for the lag-1 autocorrelation. */
  lagged: number;
  lagBefore: number;
  lagAfter: number;
  maxAbs: number;
  /** Smallest non-zero moving range: the data's resolution, or finer. */
  step: number;
}
