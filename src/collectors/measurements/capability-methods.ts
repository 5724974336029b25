/**
 * Capability of a window by each method (docs/capability.md). Percentile bounds come from order
 * statistics, distribution-free (a bootstrap was measured optimistic: its lower bound lay above the
 * true Ppk in a third of 720-value windows); Box–Cox's from Bissell's, ignoring λ's uncertainty.
 */
import { andersonDarling } from '../../util/stats/anderson-darling.ts';
import { boxCox, boxCoxLambda } from '../../util/stats/box-cox.ts';
import { quantileBoundRanks } from '../../util/stats/order-bounds.ts';
import { quantileSorted } from '../../util/stats/quantile.ts';
import {
  asIndices,
  bissellBounds,
  type Capability,
  type CapabilityMethod,
  capability,
  hasNoLimits,
  indices,
  type OmitReason,
  type PpkBounds,
} from './capability.ts';
import type { MeasurementWindowStats } from './stats.ts';
import type { Limits } from './store.ts';

/** The ISO 22514-2 points: ±3σ of a normal distribution. */
const P_LOW = 0.00135;
const P_HIGH = 0.99865;

/** What {@link windowCapability} computes from. */
export interface WindowCapabilityInput {
  readonly method: CapabilityMethod;
  readonly stats: MeasurementWindowStats;
  readonly limits: Limits | undefined;
  readonly minSamples: number;
  /** In time order; read only when a method or the test needs them. */
  readonly values: () => Float64Array;
  readonly normality: boolean;
}

/** The capability of one window by its name's method. */
export function windowCapability(input: WindowCapabilityInput): Capability {
  if (input.method === 'percentile') return percentileCapability(input);
  if (input.method === 'box-cox') return boxCoxCapability(input);
  const normal = capability(input.stats, input.limits, input.minSamples);
  return input.normality ? { ...normal, ...normalityOf(input.values()) } : normal;
}

/** Sorts `values` in place. */
function normalityOf(values: Float64Array): Pick<Capability, 'normality'> {
  const normality = andersonDarling(values.sort());
  return normality ? { normality } : {};
}

function omittedBoth(reason: OmitReason, values?: Float64Array): Capability {
  return { omitted: { ppk: reason, cpk: reason }, ...(values ? normalityOf(values) : {}) };
}

interface Points {
  readonly low: number;
  readonly mid: number;
  readonly high: number;
}

/**
 * Ppk = min((USL − X50)/(X99.865 − X50), (X50 − LSL)/(X50 − X0.135)) and
 * Pp = (USL − LSL)/(X99.865 − X0.135); a side without spread is infinitely capable.
 */
function percentileIndices({ low, mid, high }: Points, limits: Limits): { ppk: number; pp?: number } {
  const sides: number[] = [];
  if (limits.upper !== undefined) sides.push(high > mid ? (limits.upper - mid) / (high - mid) : Infinity);
  if (limits.lower !== undefined) sides.push(mid > low ? (mid - limits.lower) / (mid - low) : Infinity);
  const both = limits.upper !== undefined && limits.lower !== undefined;
  return {
    ppk: Math.min(...sides),
    ...(both ? { pp: ((limits.upper as number) - (limits.lower as number)) / (high - low) } : {}),
  };
}

/** ISO 22514-2 percentile method; Cpk and Cp are not defined by it and left out. */
function percentileCapability(input: WindowCapabilityInput): Capability {
  const { stats, limits, minSamples } = input;
  const wanted = input.normality;
  const omit = (ppk: OmitReason, values = input.values) => ({
    omitted: { ppk },
    ...(wanted ? normalityOf(values()) : {}),
  });
  if (hasNoLimits(limits)) return omit('no_limits');
  if (stats.samples < minSamples) return omit('too_few_samples');
  const sorted = input.values().sort();
  const point = percentileIndices(pointsOf(sorted), limits);
  if (stats.stddev === 0 || !Number.isFinite(point.ppk)) return omit('zero_spread', () => sorted);
  const bounds = orderStatisticBounds(sorted, limits);
  return {
    ppk: point.ppk,
    ...(point.pp !== undefined && Number.isFinite(point.pp) ? { pp: point.pp } : {}),
    omitted: {},
    ...(bounds ? { bounds } : {}),
    ...(wanted ? normalityOf(sorted) : {}),
  };
}

function pointsOf(sorted: Float64Array): Points {
  return {
    low: quantileSorted(sorted, P_LOW),
    mid: quantileSorted(sorted, 0.5),
    high: quantileSorted(sorted, P_HIGH),
  };
}

/**
 * Error share of each of the six quantile bounds the percentile bounds rest on (X50 both ways,
 * X0.135 and X99.865 both ways): by Bonferroni, all six hold together with probability ≥ 95 %,
 * so each bound of Ppk is a one-sided 95 % bound or wider.
 */
const QUANTILE_ALPHA = 0.05 / 6;

/** The lower and upper bounds of the p-quantile; each absent when n is too small for it. */
function quantileBounds(sorted: Float64Array, p: number): Array<number | undefined> {
  const ranks = quantileBoundRanks(sorted.length, p, QUANTILE_ALPHA);
  return [ranks.lower, ranks.upper].map((rank) => (rank === undefined ? undefined : sorted[rank - 1]));
}

/**
 * The range of a side's index over the box of its quantiles' bounds: the index is monotone in
 * each quantile while the tail quantile stays beyond the median, so its extremes are at the
 * corners. Undefined when a corner is missing or the box crosses the median (`side` undefined).
 */
function sideRange(
  mids: readonly (number | undefined)[],
  tails: readonly (number | undefined)[],
  side: (mid: number, tail: number) => number | undefined,
): { lower: number; upper: number } | undefined {
  const corners: number[] = [];
  for (const m of mids) {
    for (const t of tails) {
      const corner = m === undefined || t === undefined ? undefined : side(m, t);
      if (corner === undefined) return undefined;
      corners.push(corner);
    }
  }
  return { lower: Math.min(...corners), upper: Math.max(...corners) };
}

/**
 * Distribution-free one-sided 95 % bounds of the percentile Ppk from order statistics
 * (util/stats/order-bounds.ts). Undefined when the window is too small to bound a point it
 * needs without assuming a distribution: X99.865 needs 3,544 values for an upper bound.
 */
function orderStatisticBounds(
  sorted: Float64Array,
  { upper: usl, lower: lsl }: Limits,
): PpkBounds | undefined {
  const mids = quantileBounds(sorted, 0.5);
  const sides = [
    usl === undefined
      ? null
      : sideRange(mids, quantileBounds(sorted, P_HIGH), (m, h) => (h > m ? (usl - m) / (h - m) : undefined)),
    lsl === undefined
      ? null
      : sideRange(mids, quantileBounds(sorted, P_LOW), (m, l) => (l < m ? (m - lsl) / (m - l) : undefined)),
  ].filter((side) => side !== null);
  if (sides.some((x) => x === undefined)) return undefined;
  const ranges = sides as Array<{ lower: number; upper: number }>;
  // Ppk = min(sides): its bounds are the minima of the sides' bounds.
  return { lower: Math.min(...ranges.map((r) => r.lower)), upper: Math.min(...ranges.map((r) => r.upper)) };
}

/**
 * Box–Cox: λ by maximum likelihood over the window, the values and limits transformed with
 * it, then the normal method (Cpk from the moving ranges of the transformed values in time
 * order). Needs positive values; a lower limit at or below 0 cannot be transformed and is
 * dropped (a positive value never falls below it), an upper one leaves the index out.
 */
function boxCoxCapability(input: WindowCapabilityInput): Capability {
  const { stats, limits, minSamples } = input;
  if (hasNoLimits(limits)) return omittedBoth('no_limits', input.normality ? input.values() : undefined);
  if (stats.samples < minSamples) return omittedBoth('too_few_samples');
  const values = input.values();
  if (!values.every((v) => v > 0)) return omittedBoth('non_positive');
  const lambda = boxCoxLambda(values);
  if (lambda === undefined) return omittedBoth('zero_spread');
  const spec = transformedLimits(limits, lambda);
  if (spec === undefined) return omittedBoth('non_positive');
  const transformed = values.map((v) => boxCox(v, lambda));
  const { mean, sd, within } = spreads(transformed);
  const overall = indices(mean, sd, spec);
  const short = indices(mean, within, spec);
  return {
    ...asIndices(overall, short),
    ...(overall.k !== undefined ? { bounds: bissellBounds(overall.k, values.length) } : {}),
    lambda,
    ...(input.normality ? normalityOf(transformed) : {}),
  };
}

/** Undefined when none is left or the upper one is not positive. */
function transformedLimits(limits: Limits, lambda: number): Limits | undefined {
  if (limits.upper !== undefined && limits.upper <= 0) return undefined;
  const lower = limits.lower !== undefined && limits.lower > 0 ? boxCox(limits.lower, lambda) : undefined;
  const upper = limits.upper !== undefined ? boxCox(limits.upper, lambda) : undefined;
  if (lower === undefined && upper === undefined) return undefined;
  return {
    time: limits.time,
    ...(upper !== undefined ? { upper } : {}),
    ...(lower !== undefined ? { lower } : {}),
  };
}

/** d2 for moving ranges of two consecutive values. */
const D2 = 1.128;

/** Mean, sample standard deviation (n − 1) and within sigma MR-bar/d2 of time-ordered values. */
function spreads(values: Float64Array): { mean: number; sd: number; within: number } {
  const n = values.length;
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let squares = 0;
  let ranges = 0;
  for (let i = 0; i < n; i++) {
    squares += ((values[i] as number) - mean) ** 2;
    if (i > 0) ranges += Math.abs((values[i] as number) - (values[i - 1] as number));
  }
  return { mean, sd: Math.sqrt(squares / (n - 1)), within: ranges / (n - 1) / D2 };
}
