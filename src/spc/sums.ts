/**
 * The sufficient statistics of a baseline, in their own module so that the limits and the
 * detectors' calibration can both read them without importing each other.
 */

/**
 * Sufficient statistics of a baseline, as deviations y = x − anchor from a reference value (the
 * first point of the baseline, or a chart's first point): every limit, φ and the guards follow
 * from them, so that a chart can keep them per time bucket instead of the points themselves.
 */
export interface BaselineSums {
  n: number;
  sum: number;
  squares: number;
  /** Σy³: the baseline's skewness, for the detectors' calibration. */
  cubes: number;
  /** Σy⁴: the baseline's kurtosis, for the fast CUSUM's calibration to heavy tails. */
  quartics: number;
  /**
   * The median of the skewnesses of the baseline's whole time buckets (src/spc/baseline.ts), and
   * how many buckets it is of (0: none, the median NaN): a skewness one wild value cannot make.
   */
  bucketSkewness: number;
  skewBuckets: number;
  /**
   * The median of the same buckets' excess kurtoses (NaN without buckets), and their mean
   * number of points: how heavy the tails are, robust to the one wild value.
   */
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
