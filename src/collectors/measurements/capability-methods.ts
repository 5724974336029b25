/**
 * Capability of a window by each method (docs/capability.md): `normal` from the window's
 * statistics alone, `percentile` and `box-cox` from the window's values, which the store holds
 * anyway (no copy is kept between polls). The percentile method's bounds come from a seeded
 * bootstrap of {@link REPLICATES} replicates, each costing a handful of Gamma deviates whatever
 * the window's size (util/stats/bootstrap.ts); Box–Cox's from Bissell's formula on the
 * transformed values, which ignores the uncertainty of λ.
 */
import { andersonDarling } from '../../util/stats/anderson-darling.ts';
import { resampledOrderIndices } from '../../util/stats/bootstrap.ts';
import { boxCox, boxCoxLambda } from '../../util/stats/box-cox.ts';
import { type QuantilePosition, quantilePosition, quantileSorted } from '../../util/stats/quantile.ts';
import { SeededRandom } from '../../util/stats/random.ts';
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

/** Bootstrap replicates of the percentile method's bounds. */
export const REPLICATES = 1000;
/** The bootstrap's seed: the same window gives the same bounds at every poll. */
const SEED = 0x5eed;
/** The ISO 22514-2 points: ±3σ of a normal distribution. */
const P_LOW = 0.00135;
const P_HIGH = 0.99865;

/** What {@link windowCapability} computes from. */
export interface WindowCapabilityInput {
  readonly method: CapabilityMethod;
  readonly stats: MeasurementWindowStats;
  /** The series' current limits. */
  readonly limits: Limits | undefined;
  readonly minSamples: number;
  /** The window's numeric values in time order; read only when a method or the test needs them. */
  readonly values: () => Float64Array;
  /** Also test the modelled values for normality (Anderson–Darling). */
  readonly normality: boolean;
}

/** The capability of one window by its name's method. */
export function windowCapability(input: WindowCapabilityInput): Capability {
  if (input.method === 'percentile') return percentileCapability(input);
  if (input.method === 'box-cox') return boxCoxCapability(input);
  const normal = capability(input.stats, input.limits, input.minSamples);
  return input.normality ? { ...normal, ...normalityOf(input.values()) } : normal;
}

/** The Anderson–Darling test of values (sorted in place), when it is defined. */
function normalityOf(values: Float64Array): Pick<Capability, 'normality'> {
  const normality = andersonDarling(values.sort());
  return normality ? { normality } : {};
}

/** Ppk and Cpk both left out for one reason. */
function omittedBoth(reason: OmitReason, values?: Float64Array): Capability {
  return { omitted: { ppk: reason, cpk: reason }, ...(values ? normalityOf(values) : {}) };
}

/** The three ISO 22514-2 points. */
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
  if (hasNoLimits(limits))
    return { omitted: { ppk: 'no_limits' }, ...(wanted ? normalityOf(input.values()) : {}) };
  if (stats.samples < minSamples) {
    return { omitted: { ppk: 'too_few_samples' }, ...(wanted ? normalityOf(input.values()) : {}) };
  }
  const sorted = input.values().sort();
  const point = percentileIndices(pointsOf(sorted), limits);
  if (stats.stddev === 0 || !Number.isFinite(point.ppk)) {
    return { omitted: { ppk: 'zero_spread' }, ...(wanted ? normalityOf(sorted) : {}) };
  }
  const bounds = bootstrapBounds(sorted, limits);
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
 * One-sided 95 % bounds of the percentile Ppk: the 5 % and 95 % points (definition 7) of
 * {@link REPLICATES} bootstrap replicates. Undefined when a bound is not finite (a resample
 * without spread on a side).
 */
function bootstrapBounds(sorted: Float64Array, limits: Limits): PpkBounds | undefined {
  const n = sorted.length;
  const positions = [P_LOW, 0.5, P_HIGH].map((p) => quantilePosition(n, p));
  const ranks = [
    ...new Set(positions.flatMap((q) => (q.weight > 0 ? [q.index + 1, q.index + 2] : [q.index + 1]))),
  ];
  ranks.sort((a, b) => a - b);
  const slot = new Map(ranks.map((rank, j) => [rank, j]));
  const random = new SeededRandom(SEED);
  const picked = new Float64Array(ranks.length);
  const replicate = (q: QuantilePosition) => {
    const low = sorted[picked[slot.get(q.index + 1) as number] as number] as number;
    if (q.weight === 0) return low;
    const high = sorted[picked[slot.get(q.index + 2) as number] as number] as number;
    return low + q.weight * (high - low);
  };
  const replicates = new Float64Array(REPLICATES);
  for (let r = 0; r < REPLICATES; r++) {
    resampledOrderIndices(random, n, ranks, picked);
    replicates[r] = percentileIndices(
      {
        low: replicate(positions[0] as QuantilePosition),
        mid: replicate(positions[1] as QuantilePosition),
        high: replicate(positions[2] as QuantilePosition),
      },
      limits,
    ).ppk;
  }
  replicates.sort();
  const lower = quantileSorted(replicates, 0.05);
  const upper = quantileSorted(replicates, 0.95);
  return Number.isFinite(lower) && Number.isFinite(upper) ? { lower, upper } : undefined;
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

/** Limits on the transformed scale; undefined when none is left (or the upper one is not positive). */
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
