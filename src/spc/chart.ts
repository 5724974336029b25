/**
 * One charted series: points in; limits, the rules' results, the CUSUM and EWMA and the events
 * out. Pure: the caller passes the points as they arrive and the time of each poll.
 *
 * Memory is bounded: the points of the evaluation window and the overlap (and the rules' context) are
 * kept as typed columns ({@link RecentPoints}); older ones leave them, in time order, into the
 * time-bucketed sums of the baseline ({@link BaselineBuckets}), or are dropped when no baseline
 * needs them. docs/measurements.md ("Memory of a chart") gives the sizes and the exactness.
 */
import {
  BaselineBuckets,
  BaselineCollector,
  BUCKETS_PER_BASELINE,
  firstBucketAfter,
  type Grid,
} from './baseline.ts';
import {
  advanceDetectors,
  createDetectorState,
  type DetectorParams,
  type DetectorState,
  type DetectorView,
  detectorView,
  EVENT_SLOTS,
  effectiveParams,
  finalUpTo,
  forgetCheckpoints,
} from './detector-state.ts';
import {
  type ControlLimits,
  type GivenLimits,
  givenLimits,
  type LimitsResult,
  limitsFromSums,
} from './limits.ts';
import { RecentPoints } from './points.ts';
import {
  createRuleResults,
  evaluateWindowAndNew,
  lookBack,
  type RuleResults,
  type RulesConfig,
} from './rules.ts';

/** Where the limits of a series come from. Times are Unix milliseconds. */
export type BaselineSpec =
  | { readonly kind: 'rolling'; readonly durationMs: number }
  | { readonly kind: 'frozen'; readonly fromMs: number; readonly toMs: number }
  | ({ readonly kind: 'given' } & GivenLimits);

/** Everything that decides one series' chart. */
export interface ChartSpec {
  readonly baseline: BaselineSpec;
  readonly minSamples: number;
  /** The newest points, `(now - evaluationWindowMs, now]`, are evaluated by the rules. */
  readonly evaluationWindowMs: number;
  readonly rules: RulesConfig;
  /** Compensate a baseline's positive lag-1 autocorrelation beyond 0.1 (src/spc/limits.ts). */
  readonly compensate: boolean;
}

/** Settings of one chart. */
export interface ChartOptions {
  readonly spec: ChartSpec;
  /** The CUSUM's and the EWMA's settings. */
  readonly detectors: DetectorParams;
  /** How long a rolling baseline is held after a CUSUM or EWMA signal; 0: never. */
  readonly holdMs: number;
  /** Points up to this late are put in their place for the detectors (the record sync's overlap). */
  readonly overlapMs: number;
}

/** One poll of a chart. */
export interface ChartPoll {
  /** Time of the poll, Unix ms: the chart is computed as of then. */
  readonly nowMs: number;
  /** Every point up to now has arrived (the poll fetched without failures). */
  readonly complete: boolean;
}

/** What a poll changed about the chart's limits, for a log line. */
export type LimitsChange = 'established' | 'gained' | 'lost' | undefined;

/** A chart as of one poll. */
export interface ChartOutcome {
  /** Limits, or the reason there are none. */
  readonly result: LimitsResult;
  /** The limits when there are some: then the rules and the detectors evaluated. */
  readonly limits: ControlLimits | undefined;
  /** Points in the evaluation window. */
  readonly evaluated: number;
  /** Violations per rule (index rule - 1) in the evaluation window; all 0 without limits. */
  readonly counts: ArrayLike<number>;
  /**
   * Last violation time per event slot, NaN when none since the chart started: of the rules, the
   * newest violation in the window at any poll; of the CUSUM and EWMA, the newest signal counted
   * as an event (none from the replayed history).
   */
  readonly lastTimes: Float64Array;
  /** Violation events per event slot since the chart started. */
  readonly events: Float64Array;
  /** Points that arrived late, after newer ones were evaluated, since the chart started. */
  readonly late: number;
  /** The CUSUM and the EWMA, once rebuilt. */
  readonly detectors: DetectorView | undefined;
  readonly change: LimitsChange;
  /** Points this poll went over, for slicing the work. */
  readonly work: number;
}

/**
 * A rolling baseline held after a CUSUM or EWMA signal: the limits in force at the signal stay
 * until no signal came for `hold`, so that the baseline does not learn the shift it has just
 * found; then the shift's points stay out of the baseline (a gap).
 */
interface Hold {
  /** Estimated start of the shift (the CUSUM's climb), Unix ms. */
  readonly from: number;
  readonly limits: ControlLimits;
}

/** A span of times left out of a rolling baseline (both ends included): a shift that was held. */
interface TimeGap {
  readonly from: number;
  readonly to: number;
}

const NO_COUNTS = new Int32Array(8);
/**
 * While a chart loads, history this much older than its newest history point is folded into the
 * baseline's buckets: arriving in half-hour spans, a few at a time, history is much less out of
 * order than this (see {@link ControlChart.foldHistoryBefore}).
 */
const HISTORY_REORDER_MS = 4 * 3_600_000;
/**
 * History points taken between two folds: a loading chart holds at most these and the reorder
 * span (120 points at one every 2 minutes), under 256 points. With 256 it held up to 376, in
 * columns of 512: 5,000 loading charts peaked at 146 MiB of history instead of 106 (bench/spc/control.ts).
 */
const FOLD_EVERY = 64;
/** A chart's fixed cost per poll (rules, detectors, limits), in points: slices then hold fewer charts. */
const CHART_WORK = 200;
/** One collector and one set of rule results serve every chart: a poll evaluates one chart at a time. */
const COLLECTOR = new BaselineCollector(0);
const WINDOW_RESULTS: RuleResults = createRuleResults();

/**
 * What a rolling baseline's sums were computed from: the buckets (their version and the first one
 * taken), the recent points (unchanged before their old end while `prefix` stays) from `first` to
 * `end`, and the gaps. The same inputs give the same limits: they are kept, not computed again.
 */
interface BaselineKey {
  buckets: number;
  fromBucket: number;
  prefix: number;
  first: number;
  end: number;
  gaps: readonly TimeGap[];
}

/** What the rules evaluated at the last poll: the same again gives the same window results. */
interface RulesKey {
  limits: ControlLimits | undefined;
  prefix: number;
  from: number;
  end: number;
}

/** The chart of one series. */
export class ControlChart {
  private readonly spec: ChartSpec;
  private readonly params: DetectorParams;
  private readonly holdMs: number;
  private readonly overlapMs: number;
  private readonly points = new RecentPoints();
  private buckets: BaselineBuckets | undefined;
  /** The chart's first value: the baseline's sums are deviations from it. */
  private anchor = Number.NaN;
  /** Until a complete poll, the history may come again: points are recognised by key, none leaves. */
  private loading = true;
  /** Points older than this left the recent points: one arriving now is too late for the chart. */
  private retiredBefore = Number.NEGATIVE_INFINITY;
  /** Last violation time and events per event slot (rules 1..8, CUSUM, EWMA) since the chart started. */
  private readonly tally = {
    lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
    events: new Float64Array(EVENT_SLOTS),
  };
  /**
   * Time of the newest point evaluated for events; undefined before the first poll, which sets
   * it to its `now`: the history a (re)started exporter replays is context, never events.
   */
  private evaluatedTo: number | undefined;
  private readonly detectors: DetectorState;
  private hold: Hold | undefined;
  /** The baseline's bucket grid, once asked for (see {@link ControlChart.gridOf}). */
  private grid: Grid | undefined;
  /** Held shifts still inside the baseline's reach, oldest first. */
  private gaps: TimeGap[] = [];
  /**
   * How many of the points lay in `[evaluatedFrom, lateCheckTo]` when they were evaluated (-1: none
   * evaluated yet): more there later came late.
   */
  private evaluatedFrom = 0;
  private lateCheckTo = 0;
  private evaluatedCount = -1;
  /** The rolling baseline's last limits and what they were computed from. */
  private baselineMemo: LimitsResult | undefined;
  /** What {@link ControlChart.baselineMemo} was computed from: updated in place, not made per poll. */
  private readonly memoKey: BaselineKey = {
    buckets: -2,
    fromBucket: Number.NaN,
    prefix: -1,
    first: -1,
    end: -1,
    gaps: [],
  };
  /** The limits of a hold, as a result (the same object every poll of the hold). */
  private heldResult: LimitsResult | undefined;
  private readonly rulesKey: RulesKey = { limits: undefined, prefix: -1, from: -1, end: -1 };
  private late = 0;
  private hadLimits: boolean | undefined;
  /** A frozen baseline's limits, once computed from complete data. */
  private frozen: LimitsResult | undefined;
  /** Violations per rule in the evaluation window at the last poll. */
  private readonly counts = new Int32Array(8);
  /** Time of the newest point ever added. */
  private newest = Number.NEGATIVE_INFINITY;
  /** Points that arrived after older ones had left the recent points: in no baseline. */
  private tooLate = 0;
  /** History older than this may be folded while loading (see {@link ControlChart.foldHistoryBefore}). */
  private foldBefore = Number.NEGATIVE_INFINITY;
  /** Time of the newest history point folded while loading: history up to it is not taken again. */
  private foldedTo = Number.NEGATIVE_INFINITY;
  private newestHistory = Number.NEGATIVE_INFINITY;
  /** History points taken since the last fold. */
  private sinceFold = 0;
  /** History came far out of order before any was folded: none is folded (see addHistory). */
  private unordered = false;

  constructor(options: ChartOptions) {
    this.spec = options.spec;
    this.params = options.detectors;
    this.holdMs = options.holdMs;
    this.overlapMs = options.overlapMs;
    this.detectors = createDetectorState(this.params);
  }

  /** Time of the newest point ever added (-Infinity: none). */
  get lastTime(): number {
    return this.newest;
  }

  /** Points that came too late to enter the chart at all (older than the recent points). */
  get tooLatePoints(): number {
    return this.tooLate;
  }

  /** Bytes of the chart's history: the recent points' columns and the baseline's buckets. */
  get historyBytes(): number {
    return this.points.bytes + (this.buckets?.bytes ?? 0);
  }

  /**
   * Adds a point new to the caller, in any order; a non-finite value is no point of the chart.
   * A non-zero `key` (e.g. a hash of the record's identity) lets the chart recognise the same
   * point passed again by {@link ControlChart.addHistory} while it loads. A point older than the
   * recent points is too late: it is not taken (false).
   */
  add(time: number, value: number, key = 0): boolean {
    if (!Number.isFinite(value)) return false;
    if (time < this.retiredBefore) {
      this.tooLate++;
      return false;
    }
    if (Number.isNaN(this.anchor)) this.anchor = value;
    if (time > this.newest) this.newest = time;
    this.points.add(time, value, key);
    return true;
  }

  /**
   * Adds a point of the history the caller fetches for a new chart, which it may fetch again
   * until a poll completes: taken only while {@link ControlChart.isLoading}, and a second copy
   * (same time, value and non-zero `key`) is left out.
   */
  addHistory(time: number, value: number, key: number): boolean {
    if (!this.loading) {
      if (Number.isFinite(value)) this.tooLate++;
      return false;
    }
    // Folded already (see foldHistoryBefore): this record came again.
    if (time <= this.foldedTo) return false;
    // History arriving far out of order before anything was folded (newest first, say): the
    // chart does not fold, and holds it all until the first complete poll, as it is exact then.
    if (this.foldedTo === Number.NEGATIVE_INFINITY && time < this.newestHistory - HISTORY_REORDER_MS)
      this.unordered = true;
    if (this.unordered) this.foldBefore = Number.NEGATIVE_INFINITY;
    if (!this.add(time, value, key)) return false;
    if (time > this.newestHistory) this.newestHistory = time;
    if (++this.sinceFold >= FOLD_EVERY) this.fold();
    return true;
  }

  /**
   * Lets the history older than `t` leave the recent points into the baseline's buckets while
   * the chart loads, as it arrives, instead of all at the first complete poll: then a chart never
   * holds its whole history (a week at a point every 2 minutes is 5,000 points). `t` must be no
   * later than {@link ControlChart.recentFrom} at the coming poll. A record older than the
   * history folded so far is taken for one fetched again and left out, so history must arrive
   * less than {@link HISTORY_REORDER_MS} out of order (the record sync reads it in half-hour
   * spans, a few at a time, in time order). Without a call, nothing leaves before the first
   * complete poll.
   */
  foldHistoryBefore(t: number): void {
    if (!this.unordered) this.foldBefore = t;
  }

  /** True until a complete poll: history may still arrive (see {@link ControlChart.addHistory}). */
  get isLoading(): boolean {
    return this.loading;
  }

  /**
   * Where the recent points begin at `nowMs`: the evaluation window and the record sync's overlap
   * back (the rules' context before the window is kept too, however old). The chart takes no
   * point older than that once loaded, so the caller need keep nothing older to recognise the
   * points it passed on already.
   */
  static recentFrom(at: {
    readonly spec: ChartSpec;
    readonly overlapMs: number;
    readonly nowMs: number;
  }): number {
    return at.nowMs - at.spec.evaluationWindowMs - at.overlapMs;
  }

  /** Computes the chart as of the poll, counting the events of the points new since the last one. */
  evaluate(poll: ChartPoll): ChartOutcome {
    const { nowMs } = poll;
    const merged = this.points.merge();
    const points = this.points;
    const times = points.timeColumn;
    const { spec } = this;
    const b = spec.baseline;
    const evalFrom = nowMs - spec.evaluationWindowMs;
    const evalEnd = points.lowerBound(nowMs + 1);
    const evalStart = points.lowerBound(evalFrom + 1, evalEnd);
    if (b.kind === 'rolling') this.releaseHold(nowMs, evalFrom - b.durationMs);
    const result = this.limitsAt({ nowMs, evalFrom, evalStart, evalEnd, complete: poll.complete });
    const change = this.changeOf(result);
    this.evaluatedTo ??= nowMs;
    // A point belongs to the chart of the limits current when it was recorded: points of a
    // frozen baseline period are phase I, evaluated by no rule (not even as context).
    const chartStart = b.kind === 'frozen' ? points.lowerBound(b.toMs) : 0;
    const from = Math.max(evalStart, chartStart);
    this.countLate();
    // Points newer than the last evaluated one, up to now; older ones that arrive late were
    // context for runs already evaluated, and are not evaluated again.
    const newStart = Math.max(chartStart, points.lowerBound(this.evaluatedTo + 1, evalEnd));
    const newest = evalEnd > 0 ? (times[evalEnd - 1] ?? this.evaluatedTo) : this.evaluatedTo;
    let counts: ArrayLike<number> = NO_COUNTS;
    let detectors: DetectorView | undefined;
    if (!result.ok) {
      // Without limits nothing is evaluated, and these points will not be evaluated later either.
      this.evaluatedTo = Math.max(this.evaluatedTo, newest);
      forgetCheckpoints(this.detectors, this.evaluatedTo);
      this.rulesKey.limits = undefined;
      this.rememberWindowCount(evalFrom, this.evaluatedTo);
    } else {
      const span = { times, values: points.valueColumn, limits: result.limits };
      counts = this.evaluateWindow(span, { from, chartStart, newStart, evalEnd });
      detectors = this.runDetectors(span, { from, newStart, evalEnd, nowMs });
      this.evaluatedTo = Math.max(this.evaluatedTo, newest);
      const params = effectiveParams(this.params, result.limits);
      // With the detectors on, points inside the overlap are put in their place, not late.
      const finalTo =
        params.cusum.enabled || params.ewma.enabled
          ? Math.min(this.evaluatedTo, finalUpTo(this.detectors))
          : this.evaluatedTo;
      this.rememberWindowCount(evalFrom, finalTo);
    }
    const work =
      CHART_WORK + (evalEnd - Math.min(from, newStart)) + merged + this.retireOldPoints(poll, evalStart);
    return {
      result,
      limits: result.ok ? result.limits : undefined,
      evaluated: evalEnd - from,
      counts,
      lastTimes: this.tally.lastTimes,
      events: this.tally.events,
      late: this.late,
      detectors,
      change,
      work,
    };
  }

  /** The limits in force: a frozen baseline's once computed, a hold's, or the baseline's now. */
  private limitsAt(at: {
    readonly nowMs: number;
    readonly evalFrom: number;
    readonly evalStart: number;
    readonly evalEnd: number;
    readonly complete: boolean;
  }): LimitsResult {
    const b = this.spec.baseline;
    if (b.kind === 'given') return givenLimits(b);
    if (this.frozen !== undefined) return this.frozen;
    if (this.hold !== undefined) {
      if (
        this.heldResult === undefined ||
        (this.heldResult.ok && this.heldResult.limits !== this.hold.limits)
      )
        this.heldResult = { ok: true, limits: this.hold.limits };
      return this.heldResult;
    }
    const rolling = b.kind === 'rolling';
    const same = rolling && this.keepKey(at);
    if (same && this.baselineMemo !== undefined) return this.baselineMemo;
    const sums = this.baselineSums(at);
    const limits = limitsFromSums(sums.sums, {
      minSamples: this.spec.minSamples,
      kind: b.kind,
      compensate: this.spec.compensate,
      anchor: this.anchor,
    });
    if (b.kind === 'frozen' && at.complete && at.nowMs >= b.toMs) {
      this.frozen = limits;
      this.buckets = undefined;
    }
    this.baselineMemo = rolling ? limits : undefined;
    return limits;
  }

  /**
   * Whether a rolling baseline's sums at this poll come from the same inputs as the kept ones
   * (see {@link BaselineKey}); when not, the key becomes this poll's.
   */
  private keepKey(at: { readonly evalFrom: number; readonly evalStart: number }): boolean {
    const b = this.spec.baseline;
    const start = at.evalFrom - (b.kind === 'rolling' ? b.durationMs : 0);
    const points = this.points;
    const fromBucket =
      points.length === 0 || start < points.timeColumn[0]!
        ? firstBucketAfter(this.gridOf(), start)
        : Number.NaN;
    const buckets = this.buckets?.version ?? -1;
    const prefix = points.prefixVersion;
    const first = points.lowerBound(start + 1, at.evalStart);
    const k = this.memoKey;
    const same =
      k.buckets === buckets &&
      Object.is(k.fromBucket, fromBucket) &&
      k.prefix === prefix &&
      k.first === first &&
      k.end === at.evalStart &&
      k.gaps === this.gaps;
    k.buckets = buckets;
    k.fromBucket = fromBucket;
    k.prefix = prefix;
    k.first = first;
    k.end = at.evalStart;
    k.gaps = this.gaps;
    return same;
  }

  /**
   * The baseline's sums: the buckets' (whole buckets whose midpoint lies inside a rolling
   * baseline; a frozen one's grid starts at its `from`), then the recent points in it, in time
   * order, leaving out the held shifts. A rolling baseline's key must be this poll's
   * ({@link ControlChart.keepKey}).
   */
  private baselineSums(at: {
    readonly evalFrom: number;
    readonly evalStart: number;
    readonly evalEnd: number;
  }): BaselineCollector {
    const { evalFrom, evalStart, evalEnd } = at;
    const b = this.spec.baseline;
    const into = COLLECTOR.reset(this.anchor);
    const grid = this.gridOf();
    const times = this.points.timeColumn;
    const values = this.points.valueColumn;
    if (b.kind === 'rolling') {
      const start = evalFrom - b.durationMs;
      // The start is exact among the recent points; older than them, it falls on a bucket's
      // edge (whole buckets whose midpoint is after it).
      if (this.points.length === 0 || start < times[0]!)
        this.buckets?.collect(firstBucketAfter(grid, start), into);
      // The first recent point after the start, as keepKey found it just before.
      const first = this.memoKey.first;
      if (this.gaps.length === 0) for (let i = first; i < evalStart; i++) into.point(values[i]!);
      else {
        const inGap = gapTest(this.gaps);
        for (let i = first; i < evalStart; i++) {
          if (inGap(times[i]!)) into.gap();
          else into.point(values[i]!);
        }
      }
    } else if (b.kind === 'frozen') {
      this.buckets?.collect(0, into);
      for (let i = 0; i < evalEnd; i++) {
        const t = times[i]!;
        if (t >= b.fromMs && t < b.toMs) into.point(values[i]!);
      }
    }
    return into;
  }

  /** The bucket grid of the baseline (made once: the spec does not change). */
  private gridOf(): Grid {
    this.grid ??= gridOf(this.spec.baseline);
    return this.grid;
  }

  private changeOf(result: LimitsResult): LimitsChange {
    const had = this.hadLimits;
    this.hadLimits = result.ok;
    if (had === undefined) return result.ok ? 'established' : undefined;
    if (had === result.ok) return undefined;
    return result.ok ? 'gained' : 'lost';
  }

  /**
   * The rules over the window (for the gauges), and over the new points (for the events), in one
   * pass; skipped when neither the limits nor the window's points changed since the last poll.
   */
  private evaluateWindow(
    span: Evaluated,
    at: {
      readonly from: number;
      readonly chartStart: number;
      readonly newStart: number;
      readonly evalEnd: number;
    },
  ): ArrayLike<number> {
    const { values, times, limits } = span;
    const key = this.rulesKey;
    const prefix = this.points.prefixVersion;
    if (
      at.newStart >= at.evalEnd &&
      key.limits === limits &&
      key.prefix === prefix &&
      key.from === at.from &&
      key.end === at.evalEnd
    )
      return this.counts;
    key.limits = limits;
    key.prefix = prefix;
    key.from = at.from;
    key.end = at.evalEnd;
    const r = WINDOW_RESULTS;
    evaluateWindowAndNew(
      values,
      { windowStart: at.from, newStart: at.newStart, end: at.evalEnd, contextStart: at.chartStart },
      { limits, rules: this.spec.rules, window: r, events: this.tally.events },
    );
    const counts = this.counts;
    counts.set(r.count);
    for (let k = 0; k < 8; k++) {
      const i = r.lastIndex[k] ?? -1;
      const t = i < 0 ? Number.NaN : (times[i] ?? Number.NaN);
      const prev = this.tally.lastTimes[k] ?? Number.NaN;
      if (!Number.isNaN(t) && !(prev >= t)) this.tally.lastTimes[k] = t;
    }
    return counts;
  }

  /** Steps the CUSUM and the EWMA over the new points (late ones inside the overlap in their place). */
  private runDetectors(
    span: Evaluated,
    at: {
      readonly from: number;
      readonly newStart: number;
      readonly evalEnd: number;
      readonly nowMs: number;
    },
  ): DetectorView | undefined {
    const { limits } = span;
    const params = effectiveParams(this.params, limits);
    const signalBefore = this.detectors.lastSignal;
    advanceDetectors(
      this.detectors,
      {
        times: span.times,
        values: span.values,
        limits,
        params,
        range: { replayFrom: at.from, newFrom: at.newStart, to: at.evalEnd },
        keepFrom: at.nowMs - this.overlapMs,
      },
      this.tally,
    );
    const b = this.spec.baseline;
    // Object.is: before the first signal both are NaN, which `!==` would take for a new signal.
    if (b.kind === 'rolling' && !Object.is(this.detectors.lastSignal, signalBefore) && this.holdMs > 0)
      this.holdAt(limits);
    return detectorView(this.detectors, params, limits);
  }

  /**
   * Ends a hold when no signal came for `hold` (the shift's points become a gap of the baseline),
   * or when the shift has lasted a whole baseline: then it is the process's new level, and the
   * baseline learns it. Gaps older than the baseline are dropped.
   */
  private releaseHold(nowMs: number, baselineFrom: number): void {
    const hold = this.hold;
    const last = this.detectors.lastSignal;
    if (hold !== undefined && hold.from < baselineFrom) this.hold = undefined;
    else if (hold !== undefined && nowMs - last > this.holdMs) {
      this.hold = undefined;
      // A new array: the baseline's memo tells gaps apart by identity.
      this.gaps = [...this.gaps, { from: hold.from, to: last }];
    }
    if (this.gaps.length > 0) this.gaps = this.gaps.filter((g) => g.to >= baselineFrom);
  }

  private holdAt(limits: ControlLimits): void {
    const from = this.detectors.shiftFrom;
    this.hold = { from: Math.min(from, this.hold?.from ?? from), limits: this.hold?.limits ?? limits };
  }

  /** Counts the points that appeared, since the last poll, among those already evaluated then. */
  private countLate(): void {
    if (this.evaluatedCount < 0) return;
    const now = this.points.lowerBound(this.lateCheckTo + 1) - this.points.lowerBound(this.evaluatedFrom);
    if (now > this.evaluatedCount) this.late += now - this.evaluatedCount;
  }

  /**
   * Remembers how many points of the evaluation window, from `fromMs` up to `to` (the points past
   * going back over), there are at this poll: more there later arrived late and are never evaluated.
   */
  private rememberWindowCount(fromMs: number, to: number): void {
    this.evaluatedFrom = fromMs;
    this.lateCheckTo = to;
    this.evaluatedCount = this.points.lowerBound(to + 1) - this.points.lowerBound(fromMs);
  }

  /**
   * After a complete poll (or once loaded), moves the points older than the window and the overlap,
   * beyond the rules' context and before any held shift, out of the recent points: into the
   * baseline's buckets when a baseline still needs them, else nowhere. Returns how many left.
   */
  private retireOldPoints(poll: ChartPoll, evalStart: number): number {
    if (poll.complete && this.loading) {
      this.loading = false;
      this.points.forgetKeys();
    }
    if (this.loading) return 0;
    const recentFrom = ControlChart.recentFrom({
      spec: this.spec,
      overlapMs: this.overlapMs,
      nowMs: poll.nowMs,
    });
    const heldFrom = this.hold?.from ?? Number.POSITIVE_INFINITY;
    const limit = Math.min(
      this.points.lowerBound(Math.min(recentFrom, heldFrom)),
      evalStart - (lookBack(this.spec.rules) - 1),
    );
    return this.moveOut(limit);
  }

  /**
   * Moves the first `limit` recent points out: into the baseline's buckets (in time order, the
   * held shifts as gaps) when a baseline still needs them, else nowhere. Returns how many left.
   */
  private moveOut(limit: number): number {
    if (limit <= 0) return 0;
    const times = this.points.timeColumn;
    const values = this.points.valueColumn;
    const sink = this.sinkOf();
    if (sink !== undefined && this.gaps.length === 0 && this.spec.baseline.kind === 'rolling')
      for (let i = 0; i < limit; i++) sink.push(times[i]!, values[i]!);
    else if (sink !== undefined) {
      const inGap = gapTest(this.gaps);
      for (let i = 0; i < limit; i++) {
        const t = times[i]!;
        if (inGap(t)) sink.gap();
        else if (this.inBaselinePeriod(t)) sink.push(t, values[i]!);
      }
    }
    this.retiredBefore = Math.max(this.retiredBefore, times[limit - 1]!);
    this.points.dropFirst(limit);
    return limit;
  }

  /**
   * While loading, moves the history older than {@link HISTORY_REORDER_MS} before the newest one
   * (and than the fold limit, the rules' context and a held shift) out of the recent points into
   * the buckets, as {@link ControlChart.retireOldPoints} does after the poll: the whole history is then
   * never held at once. The cut never parts points of equal time, so that a record fetched again
   * is recognised by its time alone once folded.
   */
  private fold(): void {
    this.sinceFold = 0;
    this.points.merge();
    const before = Math.min(
      this.foldBefore,
      this.newestHistory - HISTORY_REORDER_MS,
      this.hold?.from ?? Number.POSITIVE_INFINITY,
    );
    let limit = this.points.lowerBound(before) - (lookBack(this.spec.rules) - 1);
    const times = this.points.timeColumn;
    while (limit > 0 && times[limit - 1] === times[limit]) limit--;
    if (limit <= 0) return;
    this.foldedTo = times[limit - 1]!;
    this.moveOut(limit);
  }

  /** The buckets points leave into, created on first use; none when no baseline needs them. */
  private sinkOf(): BaselineBuckets | undefined {
    const b = this.spec.baseline;
    if (b.kind === 'given' || this.frozen !== undefined) return undefined;
    if (this.buckets === undefined)
      this.buckets = new BaselineBuckets(
        { ...this.gridOf(), capacity: BUCKETS_PER_BASELINE + 3 },
        this.anchor,
      );
    return this.buckets;
  }

  private inBaselinePeriod(t: number): boolean {
    const b = this.spec.baseline;
    return b.kind !== 'frozen' || (t >= b.fromMs && t < b.toMs);
  }
}

/** The points, values and limits one poll evaluates. */
interface Evaluated {
  readonly times: Float64Array;
  readonly values: Float64Array;
  readonly limits: ControlLimits;
}

/** The bucket grid of a baseline: a rolling one's from the epoch, a frozen one's from `from`. */
function gridOf(b: BaselineSpec): Grid {
  if (b.kind === 'frozen') return { originMs: b.fromMs, widthMs: (b.toMs - b.fromMs) / BUCKETS_PER_BASELINE };
  const duration = b.kind === 'rolling' ? b.durationMs : 1;
  return { originMs: 0, widthMs: duration / BUCKETS_PER_BASELINE };
}

/** A test for times inside the gaps, to be asked in ascending time order. */
function gapTest(gaps: readonly TimeGap[]): (t: number) => boolean {
  if (gaps.length === 0) return () => false;
  let g = 0;
  return (t) => {
    while (g < gaps.length && gaps[g]!.to < t) g++;
    const gap = gaps[g];
    return gap !== undefined && t >= gap.from && t <= gap.to;
  };
}
