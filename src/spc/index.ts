/**
 * Control charts for one time-ordered series: limits from its baseline (phase I), then the
 * run rules over its newest points (phase II). Pure: the caller passes the series, the
 * clock's `now` and where to write the results.
 */

import { lowerBound } from '../util/sorted.ts';
import {
  type BaselineGap,
  type GivenLimits,
  givenLimits,
  type LimitsResult,
  limitsFromBaseline,
} from './limits.ts';
import { evaluateRules, type RuleResults, type RulesConfig } from './rules.ts';

export * from './limits.ts';
export * from './rules.ts';

/** Where the limits of a series come from. Times are Unix milliseconds. */
export type BaselineSpec =
  | { readonly kind: 'rolling'; readonly durationMs: number }
  | { readonly kind: 'frozen'; readonly fromMs: number; readonly toMs: number }
  | ({ readonly kind: 'given' } & GivenLimits);

/** Everything that decides one series' chart. */
export interface ChartSpec {
  readonly baseline: BaselineSpec;
  readonly minSamples: number;
  /** The newest points, `(now - evaluationWindowMs, now]`, are judged by the rules. */
  readonly evaluationWindowMs: number;
  readonly rules: RulesConfig;
  /** Compensate a baseline's positive lag-1 autocorrelation beyond 0.1 (src/spc/limits.ts). */
  readonly compensate: boolean;
}

/** A series: ascending times (Unix ms) and their values, the same length. */
export interface Series {
  readonly times: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

/** Index ranges `[start, end)` of the baseline and the evaluation points. */
export interface ChartRanges {
  readonly baselineStart: number;
  readonly baselineEnd: number;
  readonly evalStart: number;
  readonly evalEnd: number;
}

/**
 * The baseline and evaluation ranges. A rolling baseline is the `durationMs` before the
 * evaluation window, so that the points being judged do not move their own limits; a frozen
 * one is `[fromMs, toMs)`. Points newer than `now` are left out.
 */
export function chartRanges(times: ArrayLike<number>, spec: ChartSpec, nowMs: number): ChartRanges {
  const evalEnd = lowerBound(times, nowMs + 1);
  const evalFromMs = nowMs - spec.evaluationWindowMs;
  const evalStart = lowerBound(times, evalFromMs + 1, { hi: evalEnd });
  const b = spec.baseline;
  if (b.kind === 'rolling')
    return {
      baselineStart: lowerBound(times, evalFromMs - b.durationMs + 1, { hi: evalStart }),
      baselineEnd: evalStart,
      evalStart,
      evalEnd,
    };
  if (b.kind === 'frozen') {
    const start = lowerBound(times, b.fromMs, { hi: evalEnd });
    return {
      baselineStart: start,
      baselineEnd: lowerBound(times, b.toMs, { lo: start, hi: evalEnd }),
      evalStart,
      evalEnd,
    };
  }
  return { baselineStart: evalStart, baselineEnd: evalStart, evalStart, evalEnd };
}

/** Limits of a series under `spec`, leaving out the baseline's `gaps` (default none). */
export function chartLimits(
  values: ArrayLike<number>,
  ranges: ChartRanges,
  opts: { readonly spec: ChartSpec; readonly gaps?: readonly BaselineGap[] },
): LimitsResult {
  const { spec, gaps = [] } = opts;
  const b = spec.baseline;
  if (b.kind === 'given') return givenLimits(b);
  return limitsFromBaseline(
    values,
    { start: ranges.baselineStart, end: ranges.baselineEnd },
    { minSamples: spec.minSamples, kind: b.kind, gaps, compensate: spec.compensate },
  );
}

/** One series' chart: its limits, and when there are limits, the rules' results (written to `out`). */
export interface ChartResult {
  readonly limits: LimitsResult;
  readonly ranges: ChartRanges;
  /** `out`, filled; undefined when there are no limits (then nothing is judged). */
  readonly rules: RuleResults | undefined;
}

/** Computes the limits and evaluates the rules of one series at `nowMs`, writing the rules' results to `out`. */
export function controlChart(
  series: Series,
  spec: ChartSpec,
  at: { readonly nowMs: number; readonly out: RuleResults },
): ChartResult {
  const { nowMs, out } = at;
  const ranges = chartRanges(series.times, spec, nowMs);
  const limits = chartLimits(series.values, ranges, { spec });
  if (!limits.ok) return { limits, ranges, rules: undefined };
  evaluateRules(
    series.values,
    { evalStart: ranges.evalStart, end: ranges.evalEnd },
    { limits: limits.limits, rules: spec.rules, out },
  );
  return { limits, ranges, rules: out };
}

/** Time of rule `rule`'s last violation, or undefined when it has none. */
export function lastViolationTime(
  results: RuleResults,
  rule: number,
  times: ArrayLike<number>,
): number | undefined {
  const i = results.lastIndex[rule - 1] ?? -1;
  return i < 0 ? undefined : times[i];
}
