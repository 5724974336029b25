/**
 * How the sequential detectors (CUSUMs, EWMA) turn a value into the z they add up, calibrated on
 * the chart's baseline. Four corrections, always applied (no switch at a threshold):
 *
 * - Scale: the standard deviation of all points, not the moving range, which understates sigma
 *   on autocorrelated (by sqrt(1 − φ)) and skewed data; the CUSUM's chance rate is exponential
 *   in 1 / sigma², so a few percent matter.
 * - Autocorrelation: a sum of n AR(1) values has variance n (1 + φ) / (1 − φ) (the long-run
 *   variance); widening h by it keeps the diffusion exponent 2 k h / variance, and so the
 *   chance rate (src/spc/detector-state.ts). φ clamped to [{@link MIN_PHI}, {@link MAX_PHI}].
 * - Skew: a skewed baseline is mapped to a normal shape by the three-parameter lognormal of its
 *   skewness: z = ln(m + sd x) / s, e^(s²) = ω solving (ω + 2) sqrt(ω − 1) = γ, m = e^(s²/2),
 *   sd = sqrt((ω − 1) ω). Exact for lognormal data, close (fewer chance signals) for gamma.
 *   Overstated skewness stretches the short tail, so it is shrunk ({@link shrunkSkewness}).
 * - Tails: the fast CUSUM signals on three or four values near 3 sigma, so heavy tails multiply
 *   its chance rate (t5: 17 times); its h is widened by {@link tailWidening} of the excess
 *   kurtosis, the median of the time buckets' (robust to one wild value).
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

/** What a calibration is made of; approved limits carry them from their study. */
export interface CalibrationInputs {
  readonly center: number;
  /** The baseline's standard deviation (all points, n − 1). */
  readonly sigma: number;
  readonly phi: number;
  /** The (shrunk) skewness the transform follows; 0: none. */
  readonly skewness: number;
  /** The excess kurtosis {@link tailWidening} is of, kept so a study can write it. */
  readonly excessKurtosis: number;
}

/** How the detectors standardize a value of a chart (see the module's comment). */
export interface Calibration extends CalibrationInputs {
  /** s, m and sd of the transform's lognormal (s = 0: no transform). */
  readonly logS: number;
  readonly logM: number;
  readonly logSd: number;
  /** The fast CUSUM's h factor for heavy tails (1: none). */
  readonly tailWidening: number;
}

/** The calibration of measured inputs; {@link calibrationOf} ends here too, so the two cannot differ. */
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

/**
 * The calibration from a baseline's sums (deviations from `anchor`); undefined without spread.
 * `options.phi` replaces the baseline's φ (0: no widening).
 */
export function calibrationOf(
  s: Readonly<BaselineSums>,
  anchor: number,
  options: { readonly phi?: number } = {},
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
 * Excess kurtosis per unit of skewness² that skewed buckets show because they are skewed (0.86 to
 * 1.19 over gamma and lognormal shapes); the upper end, so no kurtosis the transform took out stays.
 */
const SKEW_KURTOSIS = 1.2;

/**
 * The excess kurtosis beyond normal data's and beyond what the skewness explains, shrunk by a
 * standard error, 0 or more: from the median bucket (less its normal median) when there are
 * {@link MIN_SKEW_BUCKETS}, else the whole baseline's `g2`. The fast CUSUM sees transformed
 * values, so tails the transform already maps would count twice (gamma 1: h × 1.26 for nothing);
 * symmetric heavy tails (median bucket skewness about 0) keep their widening.
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

/** The median excess kurtosis of `points` normal values (below 0); fitted within 0.01 for 20–240. */
function normalBucketKurtosis(points: number): number {
  return -6 / (points + 1) - 0.15 * Math.sqrt(24 / points);
}

const MAX_TAIL_WIDENING = 0.36;
const TAIL_WIDENING_RATE = 2.2;

/**
 * The fast CUSUM's h factor for excess kurtosis `e`: 1 + 0.36 (1 − e^(−2.2 e)), fitted to the h
 * that keeps its in-control run length under Student's t at the normal one (Brook–Evans chain;
 * checked in test/spc/calibration.test.ts).
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
 * What heavy tails add to the sample skewness' noise beyond sqrt(6 / n) (t5: ±0.25 where that is
 * 0.035). Noise taken for skew costs far more chance signals (tenfold on t5) than under-correcting
 * real skew does.
 */
const SKEW_ALLOWANCE = 0.4;

/** The sample skewness shrunk towards 0 by 2 sqrt(6 / n) and {@link SKEW_ALLOWANCE}, capped. */
export function shrunkSkewness(g: number, n: number): number {
  return n < 3 ? 0 : shrunk(g, Math.sqrt(6 / n), SKEW_ALLOWANCE);
}

/** `g` shrunk towards 0 by twice its standard error `se` and `allowance`, capped; 0 when not finite. */
function shrunk(g: number, se: number, allowance: number): number {
  if (!Number.isFinite(g)) return 0;
  const kept = Math.max(0, Math.abs(g) - 2 * se - allowance);
  return kept === 0 ? 0 : Math.sign(g) * Math.min(MAX_SKEWNESS, kept);
}

/** Fewest buckets whose median skewness is used instead of the whole baseline's. */
const MIN_SKEW_BUCKETS = 12;
/** What heavy tails add to the median bucket skewness' noise (t5: 80 % of baselines within ±0.1). */
const MEDIAN_SKEW_ALLOWANCE = 0.15;

/**
 * The median bucket skewness shrunk by twice its standard error (1.2533 sqrt(6 / n)) and
 * {@link MEDIAN_SKEW_ALLOWANCE}: robust to the one wild value that makes a heavy-tailed baseline's
 * skewness anything; biased low for skewed data, which errs towards fewer chance signals.
 */
function shrunkMedianSkewness(g: number, n: number): number {
  return shrunk(g, 1.2533 * Math.sqrt(6 / n), MEDIAN_SKEW_ALLOWANCE);
}

/** The lognormal exp(s N) whose skewness is `g` ≥ 0: s, its mean and sd (s = 0 for g = 0). */
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
 * The configured CUSUM restarts whenever its sum falls back, so its excursions are sums of a few
 * dozen values, whose variance grows a little less than the long-run factor: Monte Carlo on AR(1)
 * data needs that factor to the power 0.82 to 0.87; 0.875 stays a little above.
 */
const LONG_RUN_POWER = 0.875;

/** The configured CUSUM's h factor for an AR(1) φ. */
export function cusumLongRunFactor(phi: number): number {
  return longRunFactor(phi) ** LONG_RUN_POWER;
}

/**
 * The fast CUSUM signals on three or four large values in a row, whose joint chance grows less
 * with φ: Monte Carlo on AR(1) data needs the long-run factor to the power 0.70 to 0.76; the full
 * factor would cost a point of delay at 3 sigma for nothing.
 */
const FAST_LONG_RUN_POWER = 0.75;

/** The fast CUSUM's h factor for an AR(1) φ. */
export function fastLongRunFactor(phi: number): number {
  return longRunFactor(phi) ** FAST_LONG_RUN_POWER;
}
