/**
 * The calibration of the sequential detectors (the CUSUMs and the EWMA) on a chart's baseline:
 * how a value becomes the standardized z they add up. Four corrections, each applied always,
 * with no switch at a threshold, so that a noise-level estimate costs about nothing:
 *
 * - Scale: the baseline's standard deviation over all its points, not the moving range. The
 *   moving range understates sigma on positively autocorrelated data (by sqrt(1 − φ)) and on
 *   skewed data, and the CUSUM's chance rate is exponential in 1 / sigma²: a few percent too
 *   small a sigma multiplies its chance signals.
 * - Autocorrelation: the lag-1 autocorrelation φ of the baseline, as estimated (clamped to
 *   [{@link MIN_PHI}, {@link MAX_PHI}]). A CUSUM adds values up, and a sum of n AR(1) values of
 *   variance 1 has variance n (1 + φ) / (1 − φ) for large n (the long-run variance): its
 *   decision interval is widened by that factor (src/spc/detector-state.ts), which keeps its
 *   diffusion exponent 2 k h / variance, and so its chance rate, where it was.
 * - Skew: a skewed baseline (leakage currents, insulation resistances) is mapped to a normal
 *   shape by the three-parameter lognormal that has the baseline's skewness: z = ln(m + sd x) / s
 *   for the standardized value x, with e^(s²) = ω solving (ω + 2) sqrt(ω − 1) = γ, m = e^(s²/2)
 *   and sd = sqrt((ω − 1) ω). Exact for lognormal data, close for gamma data (it errs towards
 *   fewer chance signals there). Since overstating the skewness stretches the short tail (more
 *   chance signals on that side), the sample skewness is shrunk towards 0 by twice its standard
 *   error sqrt(6 / n) and an allowance for heavy tails ({@link shrunkSkewness}): independent
 *   normal and symmetric heavy-tailed data keep γ = 0 about always.
 * - Tails: the fast CUSUM (src/spc/detector-state.ts) signals on three or four values near or
 *   beyond 3 sigma, so heavy tails multiply its chance rate far more than the configured
 *   CUSUM's (Student's t with 5 degrees of freedom: 17 times its rate on normal data, by the
 *   Brook–Evans chain; t30 already 2.3 times). Its decision interval is widened by
 *   {@link tailWidening} of the baseline's excess kurtosis, as the median of its time buckets'
 *   (robust to the one wild value), shrunk by its standard error under normality.
 */
import type { BaselineSums } from './sums.ts';

/** φ below this is taken as this: strongly alternating data are rare, and h would shrink by 3×. */
export const MIN_PHI = -0.5;
/** φ above this is taken as this: beyond it (1 + φ) / (1 − φ) runs away. */
export const MAX_PHI = 0.8;
/** The largest skewness the transform follows (a lognormal of s ≈ 0.9). */
export const MAX_SKEWNESS = 4;
/** A transformed value is kept within ±this: a value beyond a skewed baseline's bound is far out. */
const TRANSFORM_BOUND = 8;

/** How the detectors standardize a value of a chart (see the module's comment). */
export interface Calibration {
  /** The baseline's mean. */
  readonly center: number;
  /** The baseline's standard deviation (all points, n − 1). */
  readonly sigma: number;
  /** The lag-1 autocorrelation the detectors' decision intervals are widened for. */
  readonly phi: number;
  /** The (shrunk) skewness the transform follows; 0: none. */
  readonly skewness: number;
  /** s, m and sd of the transform's lognormal (s = 0: no transform). */
  readonly logS: number;
  readonly logM: number;
  readonly logSd: number;
  /**
   * The excess kurtosis (beyond normal data's and the skewness', shrunk) {@link tailWidening} is
   * of; 0 or absent: none. Kept so that a study can write what it measured.
   */
  readonly excessKurtosis?: number;
  /** What the fast CUSUM's decision interval is widened by for heavy tails (1: none). */
  readonly tailWidening: number;
}

/**
 * What a calibration is made of, as measured on a baseline: its mean and standard deviation, φ,
 * the shrunk skewness and the excess kurtosis beyond normal. Approved limits carry them from
 * their study, so that their chart is calibrated as a rolling baseline of the same data would be.
 */
export interface CalibrationInputs {
  readonly center: number;
  readonly sigma: number;
  readonly phi: number;
  readonly skewness: number;
  readonly excessKurtosis: number;
}

/**
 * The calibration of measured inputs: φ clamped to [{@link MIN_PHI}, {@link MAX_PHI}], the
 * transform of the skewness, the tail widening of the excess kurtosis. {@link calibrationOf}
 * ends here, so a baseline's calibration and one carried by approved limits cannot differ.
 */
export function calibrationFrom(inputs: CalibrationInputs): Calibration {
  const { center, sigma, phi, skewness, excessKurtosis } = inputs;
  const { logS, logM, logSd } = lognormalOfSkewness(Math.abs(skewness));
  return {
    center,
    sigma,
    phi: Math.min(MAX_PHI, Math.max(MIN_PHI, phi)),
    skewness,
    logS,
    logM,
    logSd,
    excessKurtosis,
    tailWidening: tailWidening(excessKurtosis),
  };
}

/** Options of {@link calibrationOf}. */
export interface CalibrationOptions {
  /** Use this φ instead of the baseline's (0: no widening). */
  readonly phi?: number;
}

/**
 * The calibration from a baseline's sums (deviations from `anchor`); undefined without spread.
 */
export function calibrationOf(
  s: Readonly<BaselineSums>,
  anchor: number,
  options: CalibrationOptions = {},
): Calibration | undefined {
  const n = s.n;
  if (n < 3) return undefined;
  const m = s.sum / n;
  const m2 = s.squares / n - m * m;
  if (!(m2 > 0) || !Number.isFinite(m2)) return undefined;
  const m3 = s.cubes / n - 3 * m * (s.squares / n) + 2 * m * m * m;
  const phi = options.phi ?? lag1Phi(s, m, m2 * n);
  const skewness =
    s.skewBuckets >= MIN_SKEW_BUCKETS
      ? shrunkMedianSkewness(s.bucketSkewness, n)
      : shrunkSkewness(m3 / m2 ** 1.5, n);
  const m4 = s.quartics / n - 4 * m * (s.cubes / n) + 6 * m * m * (s.squares / n) - 3 * m ** 4;
  return calibrationFrom({
    center: anchor + m,
    sigma: Math.sqrt((m2 * n) / (n - 1)),
    phi,
    skewness,
    excessKurtosis: heavyTails(s, m4 / (m2 * m2) - 3, skewness),
  });
}

/**
 * How much excess kurtosis per unit of skewness² a skewed baseline's buckets show because they
 * are skewed: the median bucket kurtosis (less its normal median) over the square of the median
 * bucket skewness, 60-point buckets of 5,040 points, is 0.86 for gamma of skewness 0.6, 0.99 for
 * gamma 1, 1.05 for gamma 1.5, 1.11 for lognormal s 0.3 and 1.19 for lognormal s 0.5 (skewed
 * shapes' kurtosis grows with the square of their skewness); the upper end, so that a skewed
 * baseline keeps no kurtosis that its transform has already taken out.
 */
const SKEW_KURTOSIS = 1.2;

/**
 * The baseline's excess kurtosis beyond what normal data show and beyond what its skewness
 * explains, shrunk by one standard error: the median of the buckets' (when there are
 * {@link MIN_SKEW_BUCKETS}) less its median on normal data of the buckets' size, less
 * {@link SKEW_KURTOSIS} × the median bucket skewness × the skewness the transform follows; else
 * the whole baseline's `g2` less twice sqrt(24 / n). 0 or more. The kurtosis is of the raw
 * values, and the fast CUSUM sees the transformed ones: a skewed baseline's tails are what the
 * transform maps to a normal shape, and widening its h for them as well would count them twice
 * (gamma of skewness 1: h × 1.26 for nothing). Taking out only what the transform's own
 * (shrunk) skewness accounts for keeps the widening where the transform is off (a skewness
 * below the shrinkage) and for symmetric heavy tails (Student's t: median bucket skewness
 * about 0), with no switch at a threshold.
 */
function heavyTails(s: Readonly<BaselineSums>, g2: number, skewness: number): number {
  if (s.skewBuckets >= MIN_SKEW_BUCKETS && s.bucketPoints > 3) {
    const p = s.bucketPoints;
    const se = (1.2533 * Math.sqrt(24 / p)) / Math.sqrt(s.skewBuckets);
    const skewed = SKEW_KURTOSIS * Math.abs(s.bucketSkewness * skewness);
    const kept = s.bucketKurtosis - normalBucketKurtosis(p) - se - skewed;
    return Number.isFinite(kept) ? Math.max(0, kept) : 0;
  }
  const kept = g2 - 2 * Math.sqrt(24 / s.n) - SKEW_KURTOSIS * skewness * skewness;
  return Number.isFinite(kept) ? Math.max(0, kept) : 0;
}

/**
 * The median excess kurtosis of `points` independent normal values: below 0 (its mean is
 * −6 / (n + 1), and it is skewed to the right). Fitted to simulations of 20 to 240 points
 * within 0.01 (60 points: −0.20).
 */
function normalBucketKurtosis(points: number): number {
  return -6 / (points + 1) - 0.15 * Math.sqrt(24 / points);
}

/** The most {@link tailWidening} widens by. */
const MAX_TAIL_WIDENING = 0.36;
/** How fast it approaches that, per unit of excess kurtosis. */
const TAIL_WIDENING_RATE = 2.2;

/**
 * The factor on the fast CUSUM's decision interval for an excess kurtosis `e` beyond normal
 * (as {@link heavyTails} gives it): 1 + 0.36 (1 − e^(−2.2 e)). Fitted to the h that keeps the fast
 * CUSUM's in-control run length under Student's t at its run length on normal data (Brook–Evans
 * chain; t10, t5, t4 need 1.19, 1.32, 1.35 at their median bucket kurtosis, this gives 1.20,
 * 1.33, 1.35; t20 and t30 get less than they need, 1.09 and 1.03 for 1.11 and 1.07). Checked in
 * test/spc/calibration.test.ts.
 */
export function tailWidening(e: number): number {
  if (!(e > 0)) return 1;
  return 1 + MAX_TAIL_WIDENING * (1 - Math.exp(-TAIL_WIDENING_RATE * e));
}

/** φ from the sums (as src/spc/limits.ts computes it); 0 without neighbour pairs. */
function lag1Phi(s: Readonly<BaselineSums>, m: number, denominator: number): number {
  if (s.pairs === 0 || !(denominator > 0)) return 0;
  const numerator = s.lagged - m * (s.lagBefore + s.lagAfter) + s.pairs * m * m;
  const phi = numerator / denominator;
  return Number.isFinite(phi) ? phi : 0;
}

/**
 * What heavy tails add to the sample skewness' noise beyond sqrt(6 / n): its standard error is
 * that only for normal data, and many times it on heavy-tailed symmetric data (Student's t with
 * 5 degrees of freedom, n = 5,040: 80 % of baselines within ±0.25, where sqrt(6 / n) is 0.035;
 * its sixth moment, which sets the spread, does not exist). A skewness that noise put there
 * would stretch the short tail for nothing, which costs far more chance signals (a tenfold rate
 * on t5 data) than under-correcting real skew costs (skewness 1 taken as 0.6: the detectors'
 * in-control run length 1.41 million points instead of 1.32 on normal data).
 */
const SKEW_ALLOWANCE = 0.4;

/**
 * The sample skewness shrunk towards 0 by twice its standard error under normality, sqrt(6 / n),
 * and {@link SKEW_ALLOWANCE} for heavy tails, and capped at {@link MAX_SKEWNESS}.
 */
export function shrunkSkewness(g: number, n: number): number {
  if (!Number.isFinite(g) || n < 3) return 0;
  const kept = Math.max(0, Math.abs(g) - 2 * Math.sqrt(6 / n) - SKEW_ALLOWANCE);
  return kept === 0 ? 0 : Math.sign(g) * Math.min(MAX_SKEWNESS, kept);
}

/** Fewest buckets whose median skewness is used instead of the whole baseline's. */
const MIN_SKEW_BUCKETS = 12;
/** What heavy tails add to the median bucket skewness' noise (t5: 80 % of baselines within ±0.1). */
const MEDIAN_SKEW_ALLOWANCE = 0.15;

/**
 * The median of the buckets' skewnesses, shrunk towards 0 by twice its standard error under
 * normality (a median of B bucket skewnesses of n / B points each: 1.2533 sqrt(6 / n)) and
 * {@link MEDIAN_SKEW_ALLOWANCE}. A median of buckets is robust to the one wild value that makes a
 * whole baseline's skewness of heavy-tailed data anything (t5, n = 5,040: up to 4 in one chart of
 * 200); bucket skewnesses of about 60 points are biased low for skewed data (gamma, skewness 1:
 * median about 0.8), which errs towards fewer chance signals.
 */
function shrunkMedianSkewness(g: number, n: number): number {
  if (!Number.isFinite(g)) return 0;
  const kept = Math.max(0, Math.abs(g) - 2 * 1.2533 * Math.sqrt(6 / n) - MEDIAN_SKEW_ALLOWANCE);
  return kept === 0 ? 0 : Math.sign(g) * Math.min(MAX_SKEWNESS, kept);
}

/**
 * The lognormal exp(s N) (N standard normal) whose skewness is `g` ≥ 0, as s and its mean and
 * standard deviation; s = 0 for g = 0.
 */
export function lognormalOfSkewness(g: number): { logS: number; logM: number; logSd: number } {
  if (!(g > 0)) return { logS: 0, logM: 1, logSd: 0 };
  // (ω + 2) sqrt(ω − 1) rises from 0 at ω = 1: bisection on ω.
  let lo = 1;
  let hi = 2;
  while ((hi + 2) * Math.sqrt(hi - 1) < g) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const w = (lo + hi) / 2;
    if ((w + 2) * Math.sqrt(w - 1) < g) lo = w;
    else hi = w;
  }
  const w = (lo + hi) / 2;
  return { logS: Math.sqrt(Math.log(w)), logM: Math.sqrt(w), logSd: Math.sqrt((w - 1) * w) };
}

/** The value `x` as the detectors see it: standardized, and mapped to a normal shape. */
export function calibrated(c: Calibration, x: number): number {
  const z = (x - c.center) / c.sigma;
  if (c.logS === 0) return z;
  const up = c.skewness > 0;
  const y = c.logM + c.logSd * (up ? z : -z);
  const t = y > 0 ? Math.log(y) / c.logS : -TRANSFORM_BOUND;
  const bounded = Math.max(-TRANSFORM_BOUND, Math.min(TRANSFORM_BOUND, t));
  return up ? bounded : -bounded;
}

/** The long-run variance factor (1 + φ) / (1 − φ) of an AR(1) process: what a sum's variance grows by. */
export function longRunFactor(phi: number): number {
  return (1 + phi) / (1 - phi);
}

/**
 * The power of {@link longRunFactor} the configured CUSUM's decision interval is widened by. The
 * long-run variance is what a long sum sees; the CUSUM (k 0.625, h 10, cap 2.5, fast initial
 * response) restarts at 0 whenever its sum falls back, so its excursions are sums of a few dozen
 * values, whose variance grows a little less. Its in-control run length on Gaussian AR(1) data of
 * marginal variance 1 (Monte Carlo, 6×10^7 points each) is back at its run length on independent
 * data with h × about 1.18 at φ 0.1, 1.42 at 0.2 and 1.70 at 0.3: the long-run factor to the
 * power 0.82 to 0.87. 0.875 keeps it a little above (× 1.19, 1.43, 1.72).
 */
const LONG_RUN_POWER = 0.875;

/** What the configured CUSUM's decision interval is widened by for an AR(1) φ: {@link longRunFactor} to the power 0.875. */
export function cusumLongRunFactor(phi: number): number {
  return longRunFactor(phi) ** LONG_RUN_POWER;
}

/**
 * The power of {@link longRunFactor} the fast CUSUM's decision interval is widened by. The
 * long-run variance is what a sum of many values sees; the fast CUSUM (k 1.5, h 4.25) signals on
 * three or four large values in a row, whose joint chance grows less with φ. Its in-control run
 * length on Gaussian AR(1) data of marginal variance 1 (Monte Carlo, 4×10^7 points each) is back
 * at its run length on independent data (2.3 million points) with h × 1.15 at φ 0.1, × 1.36 at
 * 0.2 and × 1.56 at 0.3: the long-run factor to the power 0.70, 0.76 and 0.71. The full factor
 * (× 1.22, 1.5, 1.86) costs a point of delay at 3 sigma on such a chart for nothing.
 */
const FAST_LONG_RUN_POWER = 0.75;

/** What the fast CUSUM's decision interval is widened by for an AR(1) φ: {@link longRunFactor} to the power 0.75. */
export function fastLongRunFactor(phi: number): number {
  return longRunFactor(phi) ** FAST_LONG_RUN_POWER;
}
