/**
 * The autocorrelation flag's test: at n = 720 the standard error of φ is about 0.037, so
 * independent data exceed 0.1 now and then, and a plant of thousands of charts has some
 * everywhere. The flag is raised only when φ is significantly above {@link AUTOCORRELATION_FLAG}.
 */

/** φ above this is more autocorrelation than the documented rates tolerate. */
export const AUTOCORRELATION_FLAG = 0.1;

/** The standard normal quantile of 0.99: the test is one-sided at the 1 % level. */
const Z_CRITICAL = 2.326;

/**
 * True when (φ − 0.1) / sqrt((1 − 0.1²) / n) > 2.326 (Bartlett's standard error at φ = 0.1): at
 * n = 5,040, φ > 0.133. Data with φ exactly 0.1 are flagged on one chart in a hundred.
 */
export function autocorrelationFlagged(phi: number, pairs: number): boolean {
  if (!(pairs > 0)) return false;
  const standardError = Math.sqrt((1 - AUTOCORRELATION_FLAG ** 2) / pairs);
  return (phi - AUTOCORRELATION_FLAG) / standardError > Z_CRITICAL;
}
