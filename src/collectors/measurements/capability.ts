/** Process capability of a window against the current spec limits (docs/capability.md). */
import type { AndersonDarling } from '../../util/stats/anderson-darling.ts';
import type { MeasurementWindowStats } from './stats.ts';
import type { Limits } from './store.ts';

export type { CapabilityMethod } from '../../config/measurements-schema.ts';

/** Why a capability index is left out of a window. */
export type OmitReason = 'no_limits' | 'too_few_samples' | 'zero_spread' | 'non_positive';

/** The reasons, in the order they are checked. */
export const OMIT_REASONS: readonly OmitReason[] = [
  'no_limits',
  'too_few_samples',
  'zero_spread',
  'non_positive',
];

/** One-sided 95 % confidence bounds of Ppk. */
export interface PpkBounds {
  readonly lower: number;
  readonly upper: number;
}

/** Capability indices of one window; an index that does not exist is undefined. */
export interface Capability {
  readonly ppk?: number;
  readonly pp?: number;
  readonly cpk?: number;
  readonly cp?: number;
  /** Why Ppk / Cpk are left out, when they are. */
  readonly omitted: { readonly ppk?: OmitReason; readonly cpk?: OmitReason };
  /** Bounds of Ppk that fit the method; set for the methods other than `normal`. */
  readonly bounds?: PpkBounds;
  /** The Box–Cox λ of the window (method `box-cox`). */
  readonly lambda?: number;
  /** Anderson–Darling normality of the values the method models, when asked for. */
  readonly normality?: AndersonDarling;
}

/** z of a one-sided 95 % bound. */
const Z95 = 1.6448536269514722;

/**
 * Bissell's (1990) normal approximation of Ppk's one-sided 95 % bounds from n values,
 * Ppk ∓ z·sqrt(1/(9n) + Ppk²/(2(n − 1))): the formula of the shipped recording rules.
 */
export function bissellBounds(ppk: number, n: number): PpkBounds {
  const half = Z95 * Math.sqrt(1 / (9 * n) + (ppk * ppk) / (2 * (n - 1)));
  return { lower: ppk - half, upper: ppk + half };
}

/** True when no limit is set. */
export function hasNoLimits(limits: Limits | undefined): limits is undefined {
  return limits === undefined || (limits.upper === undefined && limits.lower === undefined);
}

/**
 * One index pair (k: nearest limit, plain: both limits) for a sigma, or the reason there is none.
 * `mean` is undefined when the window has too few samples for an index.
 */
export function indices(
  mean: number | undefined,
  sigma: number | undefined,
  limits: Limits | undefined,
): { k?: number; plain?: number; omitted?: OmitReason } {
  if (hasNoLimits(limits)) return { omitted: 'no_limits' };
  if (mean === undefined || sigma === undefined) return { omitted: 'too_few_samples' };
  if (sigma === 0) return { omitted: 'zero_spread' };
  const { upper, lower } = limits;
  const sides: number[] = [];
  if (upper !== undefined) sides.push(upper - mean);
  if (lower !== undefined) sides.push(mean - lower);
  return {
    k: Math.min(...sides) / (3 * sigma),
    ...(upper !== undefined && lower !== undefined ? { plain: (upper - lower) / (6 * sigma) } : {}),
  };
}

/** By the normal method; with one limit, Ppk / Cpk are one-sided and Pp / Cp absent. */
export function capability(
  stats: MeasurementWindowStats,
  limits: Limits | undefined,
  minSamples: number,
): Capability {
  // Too few samples: no mean to evaluate, whatever the limits (no_limits is still told first).
  const mean = stats.samples >= minSamples ? stats.mean : undefined;
  return asIndices(indices(mean, stats.stddev, limits), indices(mean, stats.withinSigma, limits));
}

type IndexPair = ReturnType<typeof indices>;

/** Ppk/Pp from the overall pair, Cpk/Cp from the within pair, with their omissions. */
export function asIndices(overall: IndexPair, within: IndexPair): Capability {
  return {
    ...(overall.k !== undefined ? { ppk: overall.k } : {}),
    ...(overall.plain !== undefined ? { pp: overall.plain } : {}),
    ...(within.k !== undefined ? { cpk: within.k } : {}),
    ...(within.plain !== undefined ? { cp: within.plain } : {}),
    omitted: {
      ...(overall.omitted ? { ppk: overall.omitted } : {}),
      ...(within.omitted ? { cpk: within.omitted } : {}),
    },
  };
}
