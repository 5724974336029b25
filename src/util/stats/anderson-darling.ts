/**
 * The Anderson–Darling test of normality with mean and variance estimated from the sample
 * (Stephens' case 3), as R's `nortest::ad.test` computes it: the statistic
 * A² = −n − (1/n) Σ (2i − 1)·[ln Φ(z₍ᵢ₎) + ln(1 − Φ(z₍ₙ₊₁₋ᵢ₎))], z = (x − x̄)/s with s the
 * sample standard deviation (n − 1), and the p-value from the modified statistic
 * A*² = A²·(1 + 0.75/n + 2.25/n²) by the piecewise fit of D'Agostino & Stephens (1986),
 * Goodness-of-Fit Techniques, Table 4.9. Written here: no maintained npm package has it.
 */
import { logNormalCdf } from './normal.ts';

/** Fewest values the test is defined for (as in nortest: the p-value fit needs n > 7). */
const AD_MIN_SAMPLES = 8;

/** A², A*² (with Stephens' small-sample modification), and the p-value of A*² (small: not normal). */
export interface AndersonDarling {
  readonly statistic: number;
  readonly modified: number;
  readonly pValue: number;
}

/** The p-value of a modified statistic A*² (D'Agostino & Stephens 1986, Table 4.9). */
export function adPValue(modified: number): number {
  const a = modified;
  if (a < 0.2) return 1 - Math.exp(-13.436 + 101.14 * a - 223.73 * a * a);
  if (a < 0.34) return 1 - Math.exp(-8.318 + 42.796 * a - 59.938 * a * a);
  if (a < 0.6) return Math.exp(0.9177 - 4.279 * a - 1.38 * a * a);
  // nortest's floor: beyond 10 the fit is extrapolated far past the table.
  if (a < 10) return Math.exp(1.2937 - 5.709 * a + 0.0186 * a * a);
  return 3.7e-24;
}

/**
 * The test on values sorted ascending; undefined with fewer than {@link AD_MIN_SAMPLES} values
 * or without spread (no z-scores).
 */
export function andersonDarling(sorted: ArrayLike<number>): AndersonDarling | undefined {
  const n = sorted.length;
  if (n < AD_MIN_SAMPLES) return undefined;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += ((sorted[i] as number) - mean) ** 2;
  const sd = Math.sqrt(squares / (n - 1));
  if (!(sd > 0) || !Number.isFinite(sd)) return undefined;
  let weighted = 0;
  for (let i = 0; i < n; i++) {
    const low = ((sorted[i] as number) - mean) / sd;
    const high = ((sorted[n - 1 - i] as number) - mean) / sd;
    // ln(1 − Φ(z)) = ln Φ(−z): both terms stay finite at the extremes.
    weighted += (2 * i + 1) * (logNormalCdf(low) + logNormalCdf(-high));
  }
  const statistic = -n - weighted / n;
  const modified = statistic * (1 + 0.75 / n + 2.25 / (n * n));
  return { statistic, modified, pValue: adPValue(modified) };
}
