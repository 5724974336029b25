/**
 * One charted series: points in; limits, the rules' results, the CUSUM and EWMA and the events
 * out. Pure: the caller passes the points as they arrive and the time of each poll.
 *
 * Memory is bounded: the points of the evaluation window and the overlap (and the rules' context) are
 * kept as typed columns ({@link RecentPoints}); older ones leave them, in time order, into the
 * time-bucketed sums of the baseline ({@link ChartBaseline}), or are dropped when no baseline
 * needs them. docs/measurements.md ("Memory of a chart") gives the sizes and the exactness.
 */
import { ChartBaseline } from './chart-baseline.ts';
import { ChartDetectors } from './chart-detectors.ts';
import { ChartLimits, type LimitsChange, type LimitsSpec } from './chart-limits.ts';
import type { DetectorParams, DetectorView } from './detector-state.ts';
import type { ControlLimits, LimitsResult } from './limits.ts';
import { RecentPoints } from './points.ts';
import { lookBack, type RulesConfig } from './rules.ts';

export type { BaselineSpec } from './chart-baseline.ts';

/** Everything that decides one series' chart. */
export interface ChartSpec extends LimitsSpec {
  /** The newest points, `(now - evaluationWindowMs, now]`, are evaluated by the rules. */
  readonly evaluationWindowMs: number;
  readonly rules: RulesConfig;
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
/** The rules' counts without limits. */
const NO_COUNTS: ArrayLike<number> = Object.freeze([0, 0, 0, 0, 0, 0, 0, 0]);
/** A chart's fixed cost per poll (rules, detectors, limits), in points: slices then hold fewer charts. */
const CHART_WORK = 200;
/** The chart of one series. */
export class ControlChart {
  private readonly spec: ChartSpec;
  private readonly overlapMs: number;
  private readonly points = new RecentPoints();
  private readonly baseline: ChartBaseline;
  private readonly limits: ChartLimits;
  private readonly detectors: ChartDetectors;
  /** Until a complete poll, the history may come again: points are recognised by key, none leaves. */
  private loading = true;
  /** Points older than this left the recent points: one arriving now is too late for the chart. */
  private retiredBefore = Number.NEGATIVE_INFINITY;
  /**
   * Time of the newest point evaluated for events; undefined before the first poll, which sets
   * it to its `now`: the history a (re)started exporter replays is context, never events.
   */
  private evaluatedTo: number | undefined;
  /**
   * How many of the points lay in `[evaluatedFrom, lateCheckTo]` when they were evaluated (-1: none
   * evaluated yet): more there later came late.
   */
  private evaluatedFrom = 0;
  private lateCheckTo = 0;
  private evaluatedCount = -1;
  private late = 0;
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
    const { spec } = options;
    this.spec = spec;
    this.overlapMs = options.overlapMs;
    this.baseline = new ChartBaseline(spec.baseline, options.holdMs, this.points);
    this.limits = new ChartLimits(spec, this.baseline);
    this.detectors = new ChartDetectors(spec.rules, options.detectors, options.overlapMs, this.points);
  }

  /** Time of the newest point ever added (-Infinity: none). */
  get lastTime(): number {
    return this.newest;
  }

  /** Points that came too late to enter the chart at all (older than the recent points). */
  get tooLatePoints(): number {
    return this.tooLate;
  }

  /**
   * Calls `take` with each point the chart holds, with its key: its recent points (the evaluation
   * window, the rules' context and the overlap), not the older ones the baseline keeps as sums.
   */
  forEachRecentPoint(take: (time: number, value: number, key: number) => void): void {
    this.points.forEach(take);
  }

  /** Bytes of the chart's history: the recent points' columns and the baseline's buckets. */
  get historyBytes(): number {
    return this.points.bytes + this.baseline.bytes;
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
    if (Number.isNaN(this.baseline.anchor)) this.baseline.anchor = value;
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
    const b = this.spec.baseline;
    const evalFrom = nowMs - this.spec.evaluationWindowMs;
    const evalEnd = points.lowerBound(nowMs + 1);
    const evalStart = points.lowerBound(evalFrom + 1, evalEnd);
    this.baseline.release(nowMs, evalFrom, this.detectors.lastSignal);
    const result = this.limits.at({ nowMs, evalFrom, evalStart, evalEnd, complete: poll.complete });
    const change = this.limits.change(result);
    const evaluatedTo = this.evaluatedTo ?? nowMs;
    // A point belongs to the chart of the limits current when it was recorded: points of a
    // frozen baseline period are phase I, evaluated by no rule (not even as context).
    const chartStart = b.kind === 'frozen' ? points.lowerBound(b.toMs) : 0;
    const from = Math.max(evalStart, chartStart);
    this.countLate();
    // Points newer than the last evaluated one, up to now; older ones that arrive late were
    // context for runs already evaluated, and are not evaluated again.
    const newStart = Math.max(chartStart, points.lowerBound(evaluatedTo + 1, evalEnd));
    const newest = evalEnd > 0 ? (points.timeColumn[evalEnd - 1] ?? evaluatedTo) : evaluatedTo;
    this.evaluatedTo = Math.max(evaluatedTo, newest);
    const range = { from, chartStart, newStart, evalEnd, nowMs };
    // Without limits nothing is evaluated, and these points will not be evaluated later either.
    if (!result.ok) this.detectors.skip(this.evaluatedTo);
    const counts = result.ok ? this.detectors.evaluateRules(result.limits, range) : NO_COUNTS;
    const detectors = result.ok ? this.detectors.advance(result.limits, range, this.baseline) : undefined;
    this.rememberWindowCount(evalFrom, this.detectors.finalTo(this.evaluatedTo));
    const work =
      CHART_WORK + (evalEnd - Math.min(from, newStart)) + merged + this.retireOldPoints(poll, evalStart);
    const { lastTimes, events } = this.detectors.tally;
    return {
      result,
      limits: result.ok ? result.limits : undefined,
      evaluated: evalEnd - from,
      counts,
      lastTimes,
      events,
      late: this.late,
      detectors,
      change,
      work,
    };
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
    const limit = Math.min(
      this.points.lowerBound(Math.min(recentFrom, this.baseline.heldFrom)),
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
    this.baseline.retire(limit);
    this.retiredBefore = Math.max(this.retiredBefore, this.points.timeColumn[limit - 1]!);
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
    const before = Math.min(this.foldBefore, this.newestHistory - HISTORY_REORDER_MS, this.baseline.heldFrom);
    let limit = this.points.lowerBound(before) - (lookBack(this.spec.rules) - 1);
    const times = this.points.timeColumn;
    while (limit > 0 && times[limit - 1] === times[limit]) limit--;
    if (limit <= 0) return;
    this.foldedTo = times[limit - 1]!;
    this.moveOut(limit);
  }
}
