/**
 * Phase I of an individuals (I-MR) control chart: control limits from a baseline of
 * time-ordered values, or limits given in config. Pure functions over typed arrays;
 * docs/measurements.md gives the formulas.
 */
import { isBelowResolution } from '../util/ulp.ts';

/** d2 for moving ranges of two points: the expected range of two normal values, in sigmas. */
export const D2 = 1.128;
/** D4 for moving ranges of two points: the MR chart's upper limit is D4 × MR̄. */
export const D4 = 3.267;

/** Where a set of limits came from; exported in HELP text and docs. */
export type BaselineKind = 'rolling' | 'frozen' | 'given';

/** Limits of an I chart and an MR chart. */
export interface ControlLimits {
  readonly kind: BaselineKind;
  /** Centre line: the baseline mean, or the given centre. */
  readonly center: number;
  /** Within sigma: MR̄ / d2, or (ucl - lcl) / 6 for given limits. */
  readonly sigma: number;
  /** I chart upper control limit: center + 3 sigma, or the given one. */
  readonly ucl: number;
  /** I chart lower control limit: center - 3 sigma, or the given one. */
  readonly lcl: number;
  /** Mean moving range; for given limits the one implied by their sigma (d2 × sigma). */
  readonly mrBar: number;
  /** MR chart upper control limit: D4 × MR̄. */
  readonly mrUcl: number;
  /** Baseline points the limits were computed from; 0 for given limits. */
  readonly samples: number;
  /**
   * Lag-1 autocorrelation φ of the baseline points (undefined for given limits): the guard for
   * the independence every false-alarm rate assumes. See {@link AUTOCORRELATION_FLAG}.
   */
  readonly autocorrelation?: number;
}

/**
 * |φ| above this flags a chart: with φ = 0.2 the CUSUM's and EWMA's chance signals grow 13–19×
 * (and the moving-range sigma understates sigma by sqrt(1 − φ)), so their documented rates no
 * longer hold.
 */
export const AUTOCORRELATION_FLAG = 0.1;

/** Why no limits exist, so that the caller can count it. */
export type NoLimitsReason = 'too_few_samples' | 'zero_sigma' | 'non_finite' | 'invalid_limits';

/** Limits, or the reason there are none (then no rule is evaluated). */
export type LimitsResult =
  | { readonly ok: true; readonly limits: ControlLimits }
  | { readonly ok: false; readonly reason: NoLimitsReason; readonly samples: number };

/**
 * True when `sigma` is zero for data of magnitude `scale`: no more than the few ulps of
 * rounding that the mean and the moving ranges leave on constant data. Decided from the data's
 * resolution, not a fixed share of it, so that a sigma of 0.001 at an offset of 1e12 is kept.
 */
export function isNegligibleSigma(sigma: number, scale: number): boolean {
  return isBelowResolution(sigma, scale);
}

/**
 * I-MR limits from the baseline points `values[start..end)` (time order matters: the moving
 * ranges are differences of neighbours). Needs at least `minSamples` (and at least 2) points,
 * all finite, and a sigma that is not negligible.
 */
export function limitsFromBaseline(
  values: ArrayLike<number>,
  start: number,
  end: number,
  minSamples: number,
  kind: 'rolling' | 'frozen',
): LimitsResult {
  const n = end - start;
  if (n < Math.max(2, minSamples)) return { ok: false, reason: 'too_few_samples', samples: Math.max(0, n) };
  // Summed as deviations from the first point, so that a large offset (1e12 + a spread of
  // 0.001) keeps the centre to well under a sigma; a plain sum would round it to about 1e-4.
  const first = values[start]!;
  let sum = 0;
  let mrSum = 0;
  let maxAbs = 0;
  let prev = first;
  // For the lag-1 autocorrelation, in the same pass: sums of squares and of neighbours' products
  // of the deviations from the first point.
  let squares = 0;
  let lagged = 0;
  for (let i = start; i < end; i++) {
    const x = values[i]!;
    const y = x - first;
    sum += y;
    squares += y * y;
    lagged += y * (prev - first);
    const abs = Math.abs(x);
    if (abs > maxAbs) maxAbs = abs;
    if (i > start) mrSum += Math.abs(x - prev);
    prev = x;
  }
  // One test covers NaN and ±Infinity in any value: both make the sums non-finite.
  if (!Number.isFinite(sum) || !Number.isFinite(mrSum))
    return { ok: false, reason: 'non_finite', samples: n };
  const center = first + sum / n;
  const mrBar = mrSum / (n - 1);
  const sigma = mrBar / D2;
  if (isNegligibleSigma(sigma, maxAbs)) return { ok: false, reason: 'zero_sigma', samples: n };
  const autocorrelation = lag1({ sum, squares, lagged, n, last: (values[end - 1] ?? first) - first });
  return {
    ok: true,
    limits: {
      kind,
      center,
      sigma,
      ucl: center + 3 * sigma,
      lcl: center - 3 * sigma,
      mrBar,
      mrUcl: D4 * mrBar,
      samples: n,
      ...(autocorrelation === undefined ? {} : { autocorrelation }),
    },
  };
}

/**
 * φ = Σ (y_i − m)(y_{i−1} − m) / Σ (y_i − m)², i from the second point, from running sums of the
 * deviations y from the first point (so the first y is 0, and `lagged` is Σ y_i y_{i−1} already);
 * `last` is the last y. Undefined without spread.
 */
function lag1(s: {
  sum: number;
  squares: number;
  lagged: number;
  n: number;
  last: number;
}): number | undefined {
  const m = s.sum / s.n;
  const denominator = s.squares - s.n * m * m;
  if (!(denominator > 0)) return undefined;
  // Σ_{i≥1} y_i = sum (the first y is 0), Σ_{i≥1} y_{i−1} = sum − last.
  const numerator = s.lagged - m * (s.sum + s.sum - s.last) + (s.n - 1) * m * m;
  return numerator / denominator;
}

/** Limits as a control plan gives them: `lcl < ucl`, the centre between them. */
export interface GivenLimits {
  readonly center: number;
  readonly ucl: number;
  readonly lcl: number;
}

/**
 * Limits given in config. Sigma is (ucl - lcl) / 6, so the zones of the run rules follow the
 * plan's limits; the MR chart's limit is the one these limits imply (D4 × d2 × sigma).
 */
export function givenLimits(given: GivenLimits): LimitsResult {
  const { center, ucl, lcl } = given;
  if (!Number.isFinite(center) || !Number.isFinite(ucl) || !Number.isFinite(lcl))
    return { ok: false, reason: 'non_finite', samples: 0 };
  if (!(lcl <= center && center <= ucl)) return { ok: false, reason: 'invalid_limits', samples: 0 };
  const sigma = (ucl - lcl) / 6;
  if (isNegligibleSigma(sigma, Math.max(Math.abs(ucl), Math.abs(lcl))))
    return { ok: false, reason: 'zero_sigma', samples: 0 };
  const mrBar = D2 * sigma;
  return {
    ok: true,
    limits: { kind: 'given', center, sigma, ucl, lcl, mrBar, mrUcl: D4 * mrBar, samples: 0 },
  };
}
