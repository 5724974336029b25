/**
 * One charted series: points in; limits, rule results, CUSUM, EWMA and events out. Pure: the
 * caller passes points as they arrive and each poll's time. Memory is bounded: the evaluation
 * window and overlap are typed columns ({@link RecentPoints}); older points leave, in time order,
 * into the baseline's bucketed sums ({@link ChartBaseline}) or are dropped. docs/measurements.md
 * ("Memory of a chart") gives the sizes.
 */
import { type BaselineSpan, type BaselineSpec, ChartBaseline } from './chart-baseline.ts';
import {
  type DetectorParams,
  Detectors,
  type DetectorView,
  EVENT_SLOTS,
  effectiveParams,
} from './detector-state.ts';
import { type ControlLimits, givenLimits, type LimitsResult, limitsFromSums } from './limits.ts';
import { RecentPoints } from './points.ts';
import { createRuleResults, evaluateWindowAndNew, lookBack, type RulesConfig } from './rules.ts';

export type { BaselineSpec } from './chart-baseline.ts';

/** Everything that decides one series' chart. */
export interface ChartSpec {
  readonly baseline: BaselineSpec;
  readonly minSamples: number;
  /** Compensate a baseline's positive lag-1 autocorrelation beyond 0.1 (src/spc/limits.ts). */
  readonly compensate: boolean;
  /** The newest points, `(now - evaluationWindowMs, now]`, are evaluated by the rules. */
  readonly evaluationWindowMs: number;
  readonly rules: RulesConfig;
}

/** Settings of one chart. */
export interface ChartOptions {
  readonly spec: ChartSpec;
  readonly detectors: DetectorParams;
  /** How long a rolling baseline is held after a CUSUM or EWMA signal; 0: never. */
  readonly holdMs: number;
  /** Points up to this late are put in their place for the detectors (the record sync's overlap). */
  readonly overlapMs: number;
}

/** One poll of a chart; `nowMs` is its time, Unix ms. */
export interface ChartPoll {
  readonly nowMs: number;
  /** Every point up to now has arrived (the poll fetched without failures). */
  readonly complete: boolean;
}

/** What a poll changed about the chart's limits, for a log line. */
export type LimitsChange = 'established' | 'gained' | 'lost' | undefined;

/** Where one poll's evaluation lies, as indexes into the points. */
interface EvaluatedRange {
  /** First point of the window, of the chart (after a frozen period), and new since the last poll. */
  readonly from: number;
  readonly chartStart: number;
  readonly newStart: number;
  readonly evalEnd: number;
  readonly nowMs: number;
}

/** A chart as of one poll. */
export interface ChartOutcome {
  readonly result: LimitsResult;
  readonly limits: ControlLimits | undefined;
  /** Points in the evaluation window. */
  readonly evaluated: number;
  /** Violations per rule (index rule - 1) in the evaluation window; all 0 without limits. */
  readonly counts: ArrayLike<number>;
  /** Last violation time per event slot, NaN when none (replayed history sets none). */
  readonly lastTimes: Float64Array;
  /** Violation events per event slot since the chart started. */
  readonly events: Float64Array;
  /** Points that arrived after newer ones were evaluated. */
  readonly late: number;
  readonly detectors: DetectorView | undefined;
  readonly change: LimitsChange;
  /** Points this poll went over, for slicing the work. */
  readonly work: number;
}

/** While loading, history this much older than the newest is folded (it arrives far less out of order). */
const HISTORY_REORDER_MS = 4 * 3_600_000;
/** History points between folds: a loading chart stays under 256 points (bench/spc/control.ts). */
const FOLD_EVERY = 64;
const NO_COUNTS: ArrayLike<number> = Object.freeze([0, 0, 0, 0, 0, 0, 0, 0]);
/** A chart's fixed cost per poll (rules, detectors, limits), in points: slices then hold fewer charts. */
const CHART_WORK = 200;
/** The chart of one series. */
export class ControlChart {
  private readonly spec: ChartSpec;
  private readonly overlapMs: number;
  private readonly points = new RecentPoints();
  private readonly baseline: ChartBaseline;
  private readonly params: DetectorParams;
  private readonly detectors: Detectors;
  /** Last violation time and events per event slot (rules 1..8, CUSUM, EWMA) since the chart started. */
  private readonly tally = {
    lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
    events: new Float64Array(EVENT_SLOTS),
  };
  private readonly results = createRuleResults();
  /** What the rules evaluated last: the same inputs give the same window results. */
  private readonly rulesKey = {
    limits: undefined as ControlLimits | undefined,
    prefix: -1,
    from: -1,
    end: -1,
  };
  private frozen: LimitsResult | undefined;
  private memo: LimitsResult | undefined;
  /** The same object every poll of a hold. */
  private held: LimitsResult | undefined;
  private hadLimits: boolean | undefined;
  /** Until a complete poll, the history may come again: points are recognised by key, none leaves. */
  private loading = true;
  /** Points older than this left the recent points: one arriving now is too late for the chart. */
  private retiredBefore = Number.NEGATIVE_INFINITY;
  /** Undefined before the first poll, which sets its `now`: replayed history is never events. */
  private evaluatedTo: number | undefined;
  /** Points in `[evaluatedFrom, lateCheckTo]` when evaluated (-1: none yet): more later came late. */
  private evaluatedFrom = 0;
  private lateCheckTo = 0;
  private evaluatedCount = -1;
  private late = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private foldBefore = Number.NEGATIVE_INFINITY;
  /** History up to the newest folded point is not taken again. */
  private foldedTo = Number.NEGATIVE_INFINITY;
  private newestHistory = Number.NEGATIVE_INFINITY;
  private sinceFold = 0;
  /** History came far out of order before any was folded: none is folded (see addHistory). */
  private unordered = false;

  constructor(options: ChartOptions) {
    const { spec } = options;
    this.spec = spec;
    this.overlapMs = options.overlapMs;
    this.baseline = new ChartBaseline(spec.baseline, options.holdMs, this.points);
    this.params = options.detectors;
    this.detectors = new Detectors(options.detectors);
  }

  /** Time of the newest point ever added (-Infinity: none). */
  get lastTime(): number {
    return this.newest;
  }

  /** Calls `take` with each recent point and its key (not those the baseline keeps as sums). */
  forEachRecentPoint(take: (time: number, value: number, key: number) => void): void {
    this.points.forEach(take);
  }

  /** Bytes of the chart's history: the recent points' columns and the baseline's buckets. */
  get historyBytes(): number {
    return this.points.bytes + this.baseline.bytes;
  }

  /**
   * Adds a point in any order (non-finite values are none). A non-zero `key` recognises the same
   * point passed again by {@link ControlChart.addHistory}. Older than the recent points: false.
   */
  add(time: number, value: number, key = 0): boolean {
    if (!Number.isFinite(value)) return false;
    if (time < this.retiredBefore) return false;
    if (Number.isNaN(this.baseline.anchor)) this.baseline.anchor = value;
    if (time > this.newest) this.newest = time;
    this.points.add(time, value, key);
    return true;
  }

  /**
   * Adds a point of a new chart's history, which may be fetched again until a poll completes:
   * taken only while loading, a second copy (same time, value and `key`) left out.
   */
  addHistory(time: number, value: number, key: number): boolean {
    if (!this.loading) return false;
    // Folded already (see foldHistoryBefore): this record came again.
    if (time <= this.foldedTo) return false;
    // History far out of order before any fold: hold it all until the first complete poll.
    if (this.foldedTo === Number.NEGATIVE_INFINITY && time < this.newestHistory - HISTORY_REORDER_MS)
      this.unordered = true;
    if (this.unordered) this.foldBefore = Number.NEGATIVE_INFINITY;
    if (!this.add(time, value, key)) return false;
    if (time > this.newestHistory) this.newestHistory = time;
    if (++this.sinceFold >= FOLD_EVERY) this.fold();
    return true;
  }

  /**
   * Lets history older than `t` fold into the baseline's buckets while loading, so a chart never
   * holds its whole history. `t` must be no later than {@link ControlChart.recentFrom} at the
   * coming poll; history must arrive less than {@link HISTORY_REORDER_MS} out of order (older
   * than the folded part counts as fetched again). Without a call nothing folds before the
   * first complete poll.
   */
  foldHistoryBefore(t: number): void {
    if (!this.unordered) this.foldBefore = t;
  }

  /** True until a complete poll: history may still arrive. */
  get isLoading(): boolean {
    return this.loading;
  }

  /**
   * Where the recent points begin at `nowMs` (window plus overlap; the rules' context is kept too).
   * Once loaded the chart takes nothing older, so the caller need remember nothing older.
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
    const result = this.limitsAt({ evalFrom, evalStart, evalEnd }, poll);
    const change = this.limitsChange(result);
    const evaluatedTo = this.evaluatedTo ?? nowMs;
    // Points of a frozen baseline period are phase I: evaluated by no rule, not even as context.
    const chartStart = b.kind === 'frozen' ? points.lowerBound(b.toMs) : 0;
    const from = Math.max(evalStart, chartStart);
    this.countLate();
    // Late points older than the last evaluated one were context, and are not evaluated again.
    const newStart = Math.max(chartStart, points.lowerBound(evaluatedTo + 1, evalEnd));
    const newest = evalEnd > 0 ? (points.timeColumn[evalEnd - 1] ?? evaluatedTo) : evaluatedTo;
    this.evaluatedTo = Math.max(evaluatedTo, newest);
    const range = { from, chartStart, newStart, evalEnd, nowMs };
    if (!result.ok) {
      // No limits: the points up to now count as evaluated, and cannot be gone back over.
      this.rulesKey.limits = undefined;
      this.detectors.forgetCheckpoints(this.evaluatedTo);
    }
    const counts = result.ok ? this.evaluateRules(result.limits, range) : NO_COUNTS;
    const detectors = result.ok ? this.advanceDetectors(result.limits, range) : undefined;
    // With detectors on, the points of the overlap are not past evaluating yet.
    const { cusum, ewma } = this.params;
    const finalTo =
      cusum.enabled || ewma.enabled ? Math.min(this.evaluatedTo, this.detectors.baseTime) : this.evaluatedTo;
    this.rememberWindowCount(evalFrom, finalTo);
    const work =
      CHART_WORK + (evalEnd - Math.min(from, newStart)) + merged + this.retireOldPoints(poll, evalStart);
    const { lastTimes, events } = this.tally;
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

  /**
   * The limits in force at the poll: given, a frozen baseline's once computed from complete
   * data, a hold's, or the rolling baseline's, computed again only when its inputs changed.
   */
  private limitsAt(at: BaselineSpan, poll: ChartPoll): LimitsResult {
    const b = this.spec.baseline;
    if (b.kind === 'given') return givenLimits(b);
    if (this.frozen !== undefined) return this.frozen;
    const hold = this.baseline.hold;
    if (hold !== undefined) {
      if (this.held === undefined || (this.held.ok && this.held.limits !== hold.limits))
        this.held = { ok: true, limits: hold.limits };
      return this.held;
    }
    const rolling = b.kind === 'rolling';
    const same = rolling && this.baseline.unchanged(at);
    if (same && this.memo !== undefined) return this.memo;
    const limits = limitsFromSums(this.baseline.sums(at), {
      minSamples: this.spec.minSamples,
      kind: b.kind,
      compensate: this.spec.compensate,
      anchor: this.baseline.anchor,
    });
    if (b.kind === 'frozen' && poll.complete && poll.nowMs >= b.toMs) {
      this.frozen = limits;
      this.baseline.close();
    }
    this.memo = rolling ? limits : undefined;
    return limits;
  }

  /** How `result` changes the limits of the last poll. */
  private limitsChange(result: LimitsResult): LimitsChange {
    const had = this.hadLimits;
    this.hadLimits = result.ok;
    if (had === undefined) return result.ok ? 'established' : undefined;
    if (had === result.ok) return undefined;
    return result.ok ? 'gained' : 'lost';
  }

  /** Violations per rule over the window, counting the new points' events; skipped when unchanged. */
  private evaluateRules(limits: ControlLimits, at: EvaluatedRange): ArrayLike<number> {
    const key = this.rulesKey;
    const r = this.results;
    const prefix = this.points.prefixVersion;
    const same = key.limits === limits && key.prefix === prefix && key.from === at.from;
    if (at.newStart >= at.evalEnd && same && key.end === at.evalEnd) return r.count;
    key.limits = limits;
    key.prefix = prefix;
    key.from = at.from;
    key.end = at.evalEnd;
    evaluateWindowAndNew(
      this.points.valueColumn,
      { windowStart: at.from, newStart: at.newStart, end: at.evalEnd, contextStart: at.chartStart },
      { limits, rules: this.spec.rules, window: r, events: this.tally.events },
    );
    const lastTimes = this.tally.lastTimes;
    for (let k = 0; k < 8; k++) {
      const i = r.lastIndex[k] ?? -1;
      const t = i < 0 ? Number.NaN : (this.points.timeColumn[i] ?? Number.NaN);
      if (!Number.isNaN(t) && !(lastTimes[k]! >= t)) lastTimes[k] = t;
    }
    return r.count;
  }

  /** Steps the detectors over the new points (late ones in place); a signal holds the baseline. */
  private advanceDetectors(limits: ControlLimits, at: EvaluatedRange): DetectorView | undefined {
    const params = effectiveParams(this.params, limits);
    const detectors = this.detectors;
    const signalBefore = detectors.lastSignal;
    const { timeColumn: times, valueColumn: values } = this.points;
    const range = { replayFrom: at.from, newFrom: at.newStart, to: at.evalEnd };
    const input = { times, values, limits, params, range, keepFrom: at.nowMs - this.overlapMs };
    detectors.advance(input, this.tally);
    // Object.is: before the first signal both are NaN, which `!==` would take for a new signal.
    if (!Object.is(detectors.lastSignal, signalBefore)) this.baseline.signalled(detectors.shiftFrom, limits);
    return detectors.view(params, limits);
  }

  /** Counts the points that appeared, since the last poll, among those already evaluated then. */
  private countLate(): void {
    if (this.evaluatedCount < 0) return;
    const now = this.points.lowerBound(this.lateCheckTo + 1) - this.points.lowerBound(this.evaluatedFrom);
    if (now > this.evaluatedCount) this.late += now - this.evaluatedCount;
  }

  /** Remembers the window's count up to `to`: more there later arrived late. */
  private rememberWindowCount(fromMs: number, to: number): void {
    this.evaluatedFrom = fromMs;
    this.lateCheckTo = to;
    this.evaluatedCount = this.points.lowerBound(to + 1) - this.points.lowerBound(fromMs);
  }

  /** Once loaded, moves points older than window, overlap, rules' context and held shift out. */
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

  /** Moves the first `limit` recent points into the baseline's buckets (or nowhere). */
  private moveOut(limit: number): number {
    if (limit <= 0) return 0;
    this.baseline.retire(limit);
    this.retiredBefore = Math.max(this.retiredBefore, this.points.timeColumn[limit - 1]!);
    this.points.dropFirst(limit);
    return limit;
  }

  /**
   * While loading, moves history older than the fold limits out, as retireOldPoints does after a
   * poll. The cut never parts equal times, so a record fetched again is recognised by time alone.
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
