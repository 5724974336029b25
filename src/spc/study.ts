/**
 * Phase I study of one chart: the limits a stable period gives (the exporter's I-MR limits, rules
 * and detectors), evaluated over that period point by point, so a quality engineer sees what each
 * rule and detector flags, excludes points with an assignable cause, and studies again.
 */
import { lowerBound } from '../util/sorted.ts';
import { type AndersonDarling, andersonDarling } from '../util/stats/anderson-darling.ts';
import { BaselineBuckets, BaselineCollector, BUCKETS_PER_BASELINE, type BucketGrid } from './baseline.ts';
import {
  CUSUM_EVENT,
  type DetectorParams,
  Detectors,
  EVENT_SLOTS,
  EWMA_EVENT,
  effectiveParams,
} from './detector-state.ts';
import { type ControlLimits, type LimitsResult, limitsFromSums } from './limits.ts';
import {
  createRuleResults,
  evaluateWindowAndNew,
  lookBack,
  RULE_NUMBERS,
  type RulesConfig,
} from './rules.ts';

/** A span of time left out of the study: points at `fromMs <= t < toMs`. */
export interface StudySpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/** The exporter's settings for the chart's name. */
export interface StudySettings {
  readonly rules: RulesConfig;
  readonly detectors: DetectorParams;
  readonly compensate: boolean;
  readonly minSamples: number;
}

/** A stretch of neighbouring flagged points: what an engineer should look at. */
export interface StudyEpisode {
  /** Time of the first and the last flagged point (for a CUSUM, from the estimated start of its climb). */
  readonly fromMs: number;
  readonly lastMs: number;
  /** Time of the first kept point after it (the end of an exclusion that covers it); NaN at the end. */
  readonly nextMs: number;
  /** Rule hits and detector signals, counted per point and source. */
  readonly flags: number;
  /** `rule 1` .. `rule 8`, `cusum`, `ewma`. */
  readonly sources: readonly string[];
  /** The largest signed distance of a point from the centre, in sigmas. */
  readonly extreme: number;
}

/** The result of {@link studyChart}. */
export interface ChartStudy {
  readonly result: LimitsResult;
  /** Points kept, and points left out by the exclusions. */
  readonly points: number;
  readonly excludedPoints: number;
  /** Times of the kept points each rule flags (index rule - 1); empty without limits. */
  readonly ruleHits: readonly (readonly number[])[];
  /** Times of the kept points at which the CUSUM (either of the two) and the EWMA signalled. */
  readonly cusumHits: readonly number[];
  readonly ewmaHits: readonly number[];
  /** Anderson-Darling test of normality of the kept values; undefined for fewer than 8 or no spread. */
  readonly normality: AndersonDarling | undefined;
  /** Stretches of flagged points, strongest first. */
  readonly episodes: readonly StudyEpisode[];
}

/** A frozen baseline's grid over the period: the shape is measured as a rolling baseline's would be. */
function studyGrid(times: ArrayLike<number>, period: StudySpan | undefined): BucketGrid {
  const first = times[0] ?? 0;
  const last = times[times.length - 1] ?? first;
  const originMs = Math.min(period?.fromMs ?? first, first);
  const endMs = Math.max(period?.toMs ?? last + 1, last + 1);
  return { originMs, widthMs: (endMs - originMs) / BUCKETS_PER_BASELINE, capacity: BUCKETS_PER_BASELINE + 1 };
}

/** The kept points, in time order, and the limits they give; an excluded point breaks the moving ranges. */
function keptPoints(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  opts: {
    readonly excluded: readonly StudySpan[];
    readonly settings: StudySettings;
    readonly period?: StudySpan;
  },
) {
  const keptTimes: number[] = [];
  const keptValues: number[] = [];
  const anchor = values[0] ?? 0;
  const buckets = new BaselineBuckets(studyGrid(times, opts.period), anchor);
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    const x = values[i]!;
    if (opts.excluded.some((s) => t >= s.fromMs && t < s.toMs)) {
      buckets.gap();
      continue;
    }
    keptTimes.push(t);
    keptValues.push(x);
    buckets.push(t, x);
  }
  const collector = new BaselineCollector(anchor);
  buckets.collect(0, collector);
  const result = limitsFromSums(collector.sums, {
    minSamples: opts.settings.minSamples,
    kind: 'frozen',
    compensate: opts.settings.compensate,
    anchor,
  });
  return { keptTimes, keptValues, result };
}

/** The kept points each enabled rule flags, by index, evaluated point by point with the engine's rules. */
function ruleFlags(values: readonly number[], limits: ControlLimits, rules: RulesConfig): number[][] {
  const hits: number[][] = RULE_NUMBERS.map(() => []);
  const window = createRuleResults();
  const events = new Float64Array(EVENT_SLOTS);
  for (let i = 0; i < values.length; i++) {
    evaluateWindowAndNew(
      values,
      { windowStart: i, newStart: i, end: i + 1, contextStart: 0 },
      { limits, rules, window, events },
    );
    for (let k = 0; k < 8; k++) if (window.count[k]! > 0) hits[k]!.push(i);
  }
  return hits;
}

/**
 * The points at which the detectors signal, stepped one at a time as the exporter steps new
 * points; for each CUSUM signal also where its climb began.
 */
function detectorFlags(
  points: { readonly times: readonly number[]; readonly values: readonly number[] },
  limits: ControlLimits,
  params: DetectorParams,
) {
  const { times, values } = points;
  const effective = effectiveParams(params, limits);
  const state = new Detectors(effective);
  // Every point is new: nothing is replayed as history, so every signal is counted.
  state.ready = true;
  const out = {
    events: new Float64Array(EVENT_SLOTS),
    lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
  };
  const cusum: number[] = [];
  const ewma: number[] = [];
  const cusumFrom: number[] = [];
  let seenCusum = 0;
  let seenEwma = 0;
  for (let i = 0; i < values.length; i++) {
    const input = { times, values, limits, params: effective, keepFrom: times[i]! };
    state.advance({ ...input, range: { replayFrom: i, newFrom: i, to: i + 1 } }, out);
    if (out.events[CUSUM_EVENT]! > seenCusum) {
      seenCusum = out.events[CUSUM_EVENT]!;
      cusum.push(i);
      cusumFrom.push(state.shiftFrom);
    }
    if (out.events[EWMA_EVENT]! > seenEwma) {
      seenEwma = out.events[EWMA_EVENT]!;
      ewma.push(i);
    }
  }
  return { cusum, ewma, cusumFrom };
}

/** One flag: the index of its point, its source, and where its evidence starts (a CUSUM's climb). */
interface Flag {
  readonly at: number;
  readonly from: number;
  readonly source: string;
}

/** Groups flags at most `gap` points apart (the longest run a rule looks back) into episodes. */
function episodesOf(
  flags: Flag[],
  points: {
    readonly times: readonly number[];
    readonly values: readonly number[];
    readonly limits: ControlLimits;
  },
  gap: number,
): StudyEpisode[] {
  flags.sort((a, b) => a.from - b.from || a.at - b.at);
  const out: StudyEpisode[] = [];
  let current: { from: number; to: number; flags: number; sources: Set<string> } | undefined;
  const close = () => {
    if (current === undefined) return;
    const { times, values, limits } = points;
    let extreme = 0;
    for (let i = current.from; i <= current.to; i++) {
      const z = (values[i]! - limits.center) / limits.sigma;
      if (Math.abs(z) > Math.abs(extreme)) extreme = z;
    }
    out.push({
      fromMs: times[current.from]!,
      lastMs: times[current.to]!,
      nextMs: times[current.to + 1] ?? Number.NaN,
      flags: current.flags,
      sources: [...current.sources].sort(),
      extreme,
    });
  };
  for (const f of flags) {
    if (current !== undefined && f.from <= current.to + gap) {
      current.to = Math.max(current.to, f.at);
      current.flags++;
      current.sources.add(f.source);
      continue;
    }
    close();
    current = { from: f.from, to: f.at, flags: 1, sources: new Set([f.source]) };
  }
  close();
  return out.sort((a, b) => b.flags - a.flags || a.fromMs - b.fromMs);
}

/**
 * Studies one chart: `times` ascending with their `values`, points in `excluded` left out. Limits
 * are a frozen baseline's over the kept points (buckets over `period`, default the points' span);
 * every kept point is then evaluated against them as the exporter would a new point.
 */
export function studyChart(
  series: { readonly times: ArrayLike<number>; readonly values: ArrayLike<number> },
  opts: {
    readonly settings: StudySettings;
    readonly excluded: readonly StudySpan[];
    readonly period?: StudySpan;
  },
): ChartStudy {
  const { keptTimes, keptValues, result } = keptPoints(series.times, series.values, opts);
  const sorted = Float64Array.from(keptValues).sort();
  const base = {
    result,
    points: keptTimes.length,
    excludedPoints: series.times.length - keptTimes.length,
    normality: andersonDarling(sorted),
  };
  if (!result.ok)
    return { ...base, ruleHits: RULE_NUMBERS.map(() => []), cusumHits: [], ewmaHits: [], episodes: [] };
  const limits = result.limits;
  const { rules, detectors } = opts.settings;
  const ruleHits = ruleFlags(keptValues, limits, rules);
  const det = detectorFlags({ times: keptTimes, values: keptValues }, limits, detectors);
  const flags: Flag[] = [];
  ruleHits.forEach((hits, k) => {
    for (const at of hits) flags.push({ at, from: at, source: `rule ${k + 1}` });
  });
  det.cusum.forEach((at, j) => {
    const from = Math.min(at, lowerBound(keptTimes, det.cusumFrom[j]!));
    flags.push({ at, from, source: 'cusum' });
  });
  for (const at of det.ewma) flags.push({ at, from: at, source: 'ewma' });
  const toTimes = (idx: readonly number[]) => idx.map((i) => keptTimes[i]!);
  return {
    ...base,
    ruleHits: ruleHits.map(toTimes),
    cusumHits: toTimes(det.cusum),
    ewmaHits: toTimes(det.ewma),
    episodes: episodesOf(flags, { times: keptTimes, values: keptValues, limits }, lookBack(rules)),
  };
}
