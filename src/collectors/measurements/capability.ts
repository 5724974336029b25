/**
 * Process capability of a window against the current spec limits: Ppk and Pp from the overall
 * sample standard deviation, Cpk and Cp from the within sigma (MR-bar / 1.128). Formulas and
 * the reasons an index is left out are in docs/measurements.md.
 */
import type { MeasurementWindowStats } from './stats.ts';
import type { Limits } from './store.ts';

/** Why a capability index is left out of a window. */
export type OmitReason = 'no_limits' | 'too_few_samples' | 'zero_spread';

/** The reasons, in the order they are checked. */
export const OMIT_REASONS: readonly OmitReason[] = ['no_limits', 'too_few_samples', 'zero_spread'];

/** Capability indices of one window; an index that does not exist is undefined. */
export interface Capability {
  readonly ppk?: number;
  readonly pp?: number;
  readonly cpk?: number;
  readonly cp?: number;
  /** Why Ppk / Cpk are left out, when they are. */
  readonly omitted: { readonly ppk?: OmitReason; readonly cpk?: OmitReason };
}

/**
 * One index pair (k: nearest limit, plain: both limits) for a sigma, or the reason there is none.
 * `mean` is undefined when the window has too few samples for an index.
 */
function indices(
  mean: number | undefined,
  sigma: number | undefined,
  limits: Limits | undefined,
): { k?: number; plain?: number; omitted?: OmitReason } {
  if (limits === undefined || (limits.upper === undefined && limits.lower === undefined)) {
    return { omitted: 'no_limits' };
  }
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

/**
 * Ppk, Pp, Cpk and Cp of a window against `limits` (the series' current limits), with at
 * least `minSamples` numeric values. With one limit, Ppk / Cpk are one-sided and Pp / Cp absent.
 */
export function capability(
  stats: MeasurementWindowStats,
  limits: Limits | undefined,
  minSamples: number,
): Capability {
  // Too few samples: no mean to evaluate, whatever the limits (no_limits is still told first).
  const mean = stats.samples >= minSamples ? stats.mean : undefined;
  const overall = indices(mean, stats.stddev, limits);
  const within = indices(mean, stats.withinSigma, limits);
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
