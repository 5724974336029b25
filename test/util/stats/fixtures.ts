/**
 * Johnson & Wichern, Applied Multivariate Statistical Analysis (6th ed.), Table 4.1: radiation
 * measured with the door closed on 42 microwave ovens. Example 4.16 finds the maximum-likelihood
 * Box–Cox λ at about 0.28; it is skewed, so the normal method's Ppk misleads on it.
 */
export const OVEN_RADIATION = [
  0.15, 0.09, 0.18, 0.1, 0.05, 0.12, 0.08, 0.05, 0.08, 0.1, 0.07, 0.02, 0.01, 0.1, 0.1, 0.1, 0.02, 0.1, 0.01,
  0.4, 0.1, 0.05, 0.03, 0.05, 0.15, 0.1, 0.15, 0.09, 0.08, 0.18, 0.1, 0.2, 0.11, 0.3, 0.02, 0.2, 0.2, 0.3,
  0.3, 0.4, 0.3, 0.05,
];

/** Sorted ascending, as a new array. */
export function sorted(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}
