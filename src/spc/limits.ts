/**
 * Phase I of an individuals (I-MR) control chart: limits from a baseline of time-ordered values,
 * or given in config. docs/measurements.md gives the formulas.
 */
import { isBelowResolution } from '../util/ulp.ts';
import { AUTOCORRELATION_FLAG, autocorrelationFlagged } from './autocorrelation.ts';
import { type Calibration, type CalibrationInputs, calibrationFrom, calibrationOf } from './calibration.ts';
import type { BaselineSums } from './sums.ts';

/** d2 for moving ranges of two points: the expected range of two normal values, in sigmas. */
const D2 = 1.128;
/** D4 for moving ranges of two points: the MR chart's upper limit is D4 × MR̄. */
const D4 = 3.267;

/** Where a set of limits came from; exported in HELP text and docs. */
type BaselineKind = 'rolling' | 'frozen' | 'given';

/** Limits of an I chart and an MR chart. */
export interface ControlLimits {
  readonly kind: BaselineKind;
  readonly center: number;
  /** Within sigma: MR̄ / d2, or (ucl - lcl) / 6 for given limits. */
  readonly sigma: number;
  readonly ucl: number;
  readonly lcl: number;
  /** Mean moving range; for given limits d2 × sigma. */
  readonly mrBar: number;
  readonly mrUcl: number;
  /** Baseline points; 0 for given limits. */
  readonly samples: number;
  /** Lag-1 autocorrelation φ of the baseline: the guard for the independence every rate assumes. */
  readonly autocorrelation?: number;
  /**
   * The φ limits and detectors are compensated for, when above {@link AUTOCORRELATION_FLAG}
   * (capped at {@link MAX_COMPENSATED_PHI}). It follows the estimate, not the flag's test: waiting
   * for significance costs hundreds of chance signals a day per 1,000 charts at φ = 0.2. Negative
   * φ is not compensated: the moving range then overstates sigma (fewer signals).
   */
  readonly compensatedPhi?: number;
  /** φ is significantly above the flag for the baseline's size: the documented rates do not hold. */
  readonly autocorrelated?: boolean;
  /** How the detectors standardize a value; absent for given limits without a study's shape. */
  readonly calibration?: Calibration;
  /** Smallest non-zero difference of neighbouring baseline points: the data's resolution, or finer. */
  readonly resolution?: number;
  /** The resolution is coarser than {@link QUANTIZATION_FLAG} sigma: too few levels for the rules. */
  readonly quantized?: boolean;
}

/** Beyond this φ the factors run away, and so slow a process says little point by point anyway. */
export const MAX_COMPENSATED_PHI = 0.8;

/** A finest step above this share of sigma is quantized: zones hold two levels, ties decide runs. */
export const QUANTIZATION_FLAG = 0.5;

/** Why no limits exist, so that the caller can count it. */
type NoLimitsReason = 'too_few_samples' | 'zero_sigma' | 'non_finite' | 'invalid_limits';

/** Limits, or the reason there are none (then no rule is evaluated). */
export type LimitsResult =
  | { readonly ok: true; readonly limits: ControlLimits }
  | { readonly ok: false; readonly reason: NoLimitsReason; readonly samples: number };

/** Options of {@link limitsFromSums}. */
export interface BaselineOptions {
  /** Fewest points (at least 2) for limits. */
  readonly minSamples: number;
  readonly kind: 'rolling' | 'frozen';
  /** Compensate a positive autocorrelation beyond the flag (default true). */
  readonly compensate?: boolean;
}

export type { BaselineSums } from './sums.ts';

/** Empty sums. */
export function emptySums(): BaselineSums {
  return {
    n: 0,
    sum: 0,
    squares: 0,
    cubes: 0,
    quartics: 0,
    bucketSkewness: Number.NaN,
    skewBuckets: 0,
    bucketKurtosis: Number.NaN,
    bucketPoints: 0,
    pairs: 0,
    mrSum: 0,
    lagged: 0,
    lagBefore: 0,
    lagAfter: 0,
    maxAbs: 0,
    step: Number.POSITIVE_INFINITY,
  };
}

/** Adds one point `x` (deviation `y` from the anchor) to the sums; none before it in its segment. */
export function addPoint(s: BaselineSums, x: number, y: number): void {
  s.n++;
  s.sum += y;
  s.squares += y * y;
  s.cubes += y * y * y;
  s.quartics += y * y * y * y;
  const abs = Math.abs(x);
  if (abs > s.maxAbs) s.maxAbs = abs;
}

/** A neighbour pair: a point `x` (deviation `y`) and the point before it, `prev` (deviation `py`). */
export interface Pair {
  x: number;
  y: number;
  prev: number;
  py: number;
}

/** Adds a neighbour pair's moving range and lag-1 products (callers reuse one {@link Pair}). */
export function addPair(s: BaselineSums, pair: Readonly<Pair>): void {
  const mr = Math.abs(pair.x - pair.prev);
  s.mrSum += mr;
  if (mr > 0 && mr < s.step) s.step = mr;
  s.lagged += pair.y * pair.py;
  s.lagBefore += pair.py;
  s.lagAfter += pair.y;
  s.pairs++;
}

/**
 * I-MR limits from a baseline's sums (deviations from `anchor`). φ above
 * {@link AUTOCORRELATION_FLAG} gives sigma = MR̄ / d2 / sqrt(1 − φ) unless `compensate` is false:
 * the moving range of an AR(1) process understates its sigma by that factor.
 */
export function limitsFromSums(
  s: Readonly<BaselineSums>,
  options: BaselineOptions & { readonly anchor: number },
): LimitsResult {
  const { minSamples, kind, compensate = true, anchor } = options;
  const n = s.n;
  if (n < Math.max(2, minSamples) || s.pairs === 0)
    return { ok: false, reason: 'too_few_samples', samples: Math.max(0, n) };
  // One test covers NaN and ±Infinity in any value: both make the sums non-finite.
  if (!Number.isFinite(s.sum) || !Number.isFinite(s.mrSum))
    return { ok: false, reason: 'non_finite', samples: n };
  const center = anchor + s.sum / n;
  const mrBar = s.mrSum / s.pairs;
  const within = mrBar / D2;
  // Zero is a few ulps of the data's magnitude, not a share of it: 0.001 at 1e12 is kept.
  if (isBelowResolution(within, s.maxAbs)) return { ok: false, reason: 'zero_sigma', samples: n };
  const autocorrelation = lag1(s);
  const phi =
    compensate && autocorrelation !== undefined && autocorrelation > AUTOCORRELATION_FLAG
      ? Math.min(autocorrelation, MAX_COMPENSATED_PHI)
      : 0;
  const sigma = phi > 0 ? within / Math.sqrt(1 - phi) : within;
  // Optional fields set in place, not spread in: limits are made for every chart at most polls.
  const limits: { -readonly [K in keyof ControlLimits]: ControlLimits[K] } = {
    kind,
    center,
    sigma,
    ucl: center + 3 * sigma,
    lcl: center - 3 * sigma,
    mrBar,
    mrUcl: D4 * mrBar,
    samples: n,
  };
  if (autocorrelation !== undefined) {
    limits.autocorrelation = autocorrelation;
    limits.autocorrelated = autocorrelationFlagged(autocorrelation, s.pairs);
  }
  if (phi > 0) limits.compensatedPhi = phi;
  const calibration = compensate ? calibrationOf(s, anchor) : calibrationOf(s, anchor, { phi: 0 });
  if (calibration !== undefined) limits.calibration = calibration;
  if (Number.isFinite(s.step)) {
    limits.resolution = s.step;
    limits.quantized = s.step > QUANTIZATION_FLAG * within;
  }
  return { ok: true, limits };
}

/** φ = Σ (y_i − m)(y_{i−1} − m) / Σ (y_i − m)² over the neighbour pairs; undefined without spread. */
function lag1(s: Readonly<BaselineSums>): number | undefined {
  const m = s.sum / s.n;
  const denominator = s.squares - s.n * m * m;
  if (!(denominator > 0)) return undefined;
  const numerator = s.lagged - m * (s.lagBefore + s.lagAfter) + s.pairs * m * m;
  return numerator / denominator;
}

/** Limits as a control plan gives them: `lcl < ucl`, the centre between them. */
export interface GivenLimits {
  readonly center: number;
  readonly ucl: number;
  readonly lcl: number;
  /** The sigma of the study that gave the limits (approved limits); default (ucl - lcl) / 6. */
  readonly sigma?: number;
  /** The shape the study measured: the detectors are calibrated on it as on a rolling baseline. */
  readonly shape?: StudyShape;
}

/** A study's {@link CalibrationInputs} without the centre; `sigma` of all points, not the limits'. */
export type StudyShape = Omit<CalibrationInputs, 'center'>;

/**
 * Limits given in config or approved. Sigma is the given one, else (ucl - lcl) / 6, so the rules'
 * zones follow the plan's limits; the MR limit is D4 × d2 × sigma.
 */
export function givenLimits(given: GivenLimits): LimitsResult {
  const { center, ucl, lcl } = given;
  if (!Number.isFinite(center) || !Number.isFinite(ucl) || !Number.isFinite(lcl))
    return { ok: false, reason: 'non_finite', samples: 0 };
  if (!(lcl <= center && center <= ucl)) return { ok: false, reason: 'invalid_limits', samples: 0 };
  const sigma = given.sigma ?? (ucl - lcl) / 6;
  if (!(sigma >= 0 && sigma < Number.POSITIVE_INFINITY))
    return { ok: false, reason: 'invalid_limits', samples: 0 };
  if (isBelowResolution(sigma, Math.max(Math.abs(ucl), Math.abs(lcl))))
    return { ok: false, reason: 'zero_sigma', samples: 0 };
  const mrBar = D2 * sigma;
  const limits: { -readonly [K in keyof ControlLimits]: ControlLimits[K] } = {
    kind: 'given',
    center,
    sigma,
    ucl,
    lcl,
    mrBar,
    mrUcl: D4 * mrBar,
    samples: 0,
  };
  const shape = given.shape;
  if (shape !== undefined) {
    if (!(shape.sigma > 0 && shape.sigma < Number.POSITIVE_INFINITY))
      return { ok: false, reason: 'invalid_limits', samples: 0 };
    limits.calibration = calibrationFrom({ ...shape, center });
  }
  return { ok: true, limits };
}
