/**
 * The autocorrelation flag's test. A baseline's lag-1 autocorrelation φ is an estimate: at
 * n = 720 points its standard error is about 1/sqrt(n) = 0.037, so independent data give |φ|
 * above 0.1 now and then, and a plant of thousands of charts has some everywhere. The flag says
 * a chart breaks the independence its documented rates assume, so it is raised only when φ is
 * significantly above {@link AUTOCORRELATION_FLAG}: a one-sided test at the 1 % level.
 */

/** φ above this is more autocorrelation than the documented rates tolerate. */
export const AUTOCORRELATION_FLAG = 0.1;

/**
 * The standard normal quantile of 0.99: the flag's test of φ > {@link AUTOCORRELATION_FLAG} is
 * one-sided at the 1 % level.
 */
const Z_CRITICAL = 2.326;

/**
 * True when `phi`, estimated from `pairs` neighbour pairs, is significantly above
 * {@link AUTOCORRELATION_FLAG}: (φ − 0.1) / sqrt((1 − 0.1²) / n) > 2.326, with Bartlett's
 * standard error of a lag-1 autocorrelation at the boundary φ = 0.1. At n = 720 that is
 * φ > 0.186; at a week of points every 2 minutes (n = 5,040), φ > 0.133. Independent data are
 * flagged about never; data with φ exactly 0.1, one chart in a hundred.
 */
export function autocorrelationFlagged(phi: number, pairs: number): boolean {
  if (!(pairs > 0)) return false;
  const standardError = Math.sqrt((1 - AUTOCORRELATION_FLAG ** 2) / pairs);
  return (phi - AUTOCORRELATION_FLAG) / standardError > Z_CRITICAL;
}
