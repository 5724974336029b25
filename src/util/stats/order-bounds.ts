/**
 * Distribution-free confidence bounds of a quantile from order statistics: the number of values
 * below the p-quantile X_p is Binomial(n, p), so X_p ≤ x₍ᵤ₎ with probability
 * P(Bin(n, p) ≤ u − 1) and X_p ≥ x₍ₗ₎ with probability P(Bin(n, p) ≥ l), whatever the
 * distribution (continuous). The binomial distribution function is summed in log space, so n of
 * a million and p of 0.00135 or 0.5 neither underflow nor lose the tail.
 */

/** 1-based ranks of one-sided bounds of X_p; a bound the sample is too small for is absent. */
export interface QuantileBoundRanks {
  /** The largest rank l with P(X_p ≥ x₍ₗ₎) ≥ 1 − alpha. */
  readonly lower?: number;
  /** The smallest rank u with P(X_p ≤ x₍ᵤ₎) ≥ 1 − alpha. */
  readonly upper?: number;
}

/** ln(e^a + e^b) without overflow. */
function logAdd(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY) return b;
  const high = Math.max(a, b);
  return high + Math.log1p(Math.exp(Math.min(a, b) - high));
}

/**
 * The ranks of one-sided (1 − alpha) bounds of the p-quantile (0 < p < 1) from n values. Above
 * the median the ranks are found from the top (the bounds of the (1 − p)-quantile of the
 * negated values), so the walk over the binomial distribution stays short in the upper tail.
 */
export function quantileBoundRanks(n: number, p: number, alpha: number): QuantileBoundRanks {
  if (p <= 0.5) return ranksFromBelow(n, p, alpha);
  const mirrored = ranksFromBelow(n, 1 - p, alpha);
  return {
    ...(mirrored.upper !== undefined ? { lower: n + 1 - mirrored.upper } : {}),
    ...(mirrored.lower !== undefined ? { upper: n + 1 - mirrored.lower } : {}),
  };
}

/** {@link quantileBoundRanks} by walking the binomial distribution function from 0 upward. */
function ranksFromBelow(n: number, p: number, alpha: number): QuantileBoundRanks {
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logPmf = n * logQ;
  let logCdf = Number.NEGATIVE_INFINITY;
  let lower: number | undefined;
  let upper: number | undefined;
  // Walk k = 0 .. n − 1 with CDF(k) = P(Bin(n, p) ≤ k) until both ranks are found.
  for (let k = 0; k < n; k++) {
    logCdf = logAdd(logCdf, logPmf);
    const cdf = Math.exp(logCdf);
    // CDF(k) ≤ alpha: at least k + 1 values lie below X_p with probability ≥ 1 − alpha.
    if (cdf <= alpha) lower = k + 1;
    if (cdf >= 1 - alpha) {
      upper = k + 1;
      break;
    }
    logPmf += Math.log((n - k) / (k + 1)) + logP - logQ;
  }
  return { ...(lower !== undefined ? { lower } : {}), ...(upper !== undefined ? { upper } : {}) };
}
