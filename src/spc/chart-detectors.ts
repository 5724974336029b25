/**
 * What finds signals on a chart: the run rules over the evaluation window, and the CUSUM, the
 * fast CUSUM and the EWMA over the new points, with the events and last signal times of all.
 */

import type { ChartBaseline } from './chart-baseline.ts';
import {
  advanceDetectors,
  createDetectorState,
  DetectorAdvance,
  type DetectorParams,
  type DetectorState,
  type DetectorView,
  detectorView,
  EVENT_SLOTS,
  effectiveParams,
  forgetCheckpoints,
} from './detector-state.ts';
import type { ControlLimits } from './limits.ts';
import type { RecentPoints } from './points.ts';
import { createRuleResults, evaluateWindowAndNew, type RulesConfig } from './rules.ts';

/** Where one poll's evaluation lies, as indexes into the points. */
export interface EvaluatedRange {
  /** First point of the window, of the chart (after a frozen period), and new since the last poll. */
  readonly from: number;
  readonly chartStart: number;
  readonly newStart: number;
  readonly evalEnd: number;
}

/** The rules and the detectors of one chart. */
export class ChartDetectors {
  /** Last violation time and events per event slot (rules 1..8, CUSUM, EWMA) since the chart started. */
  readonly tally = {
    lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
    events: new Float64Array(EVENT_SLOTS),
  };
  private readonly state: DetectorState;
  private readonly pass = new DetectorAdvance();
  private readonly results = createRuleResults();
  /** What the rules evaluated last: the same inputs give the same window results. */
  private readonly rulesKey = {
    limits: undefined as ControlLimits | undefined,
    prefix: -1,
    from: -1,
    end: -1,
  };

  constructor(
    private readonly rules: RulesConfig,
    private readonly params: DetectorParams,
    private readonly overlapMs: number,
    private readonly points: RecentPoints,
  ) {
    this.state = createDetectorState(params);
  }

  /** Time of the last CUSUM or EWMA signal, NaN when none. */
  get lastSignal(): number {
    return this.state.lastSignal;
  }

  /** Violations per rule over the window, counting the new points' events; skipped when unchanged. */
  evaluateRules(limits: ControlLimits, at: EvaluatedRange): ArrayLike<number> {
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
      { limits, rules: this.rules, window: r, events: this.tally.events },
    );
    const lastTimes = this.tally.lastTimes;
    for (let k = 0; k < 8; k++) {
      const i = r.lastIndex[k] ?? -1;
      const t = i < 0 ? Number.NaN : (this.points.timeColumn[i] ?? Number.NaN);
      if (!Number.isNaN(t) && !(lastTimes[k]! >= t)) lastTimes[k] = t;
    }
    return r.count;
  }

  /** Steps the detectors over the new points (late ones in place); a signal holds the `baseline`. */
  advance(
    limits: ControlLimits,
    at: EvaluatedRange & { readonly nowMs: number },
    baseline: ChartBaseline,
  ): DetectorView | undefined {
    const params = effectiveParams(this.params, limits);
    const state = this.state;
    const signalBefore = state.lastSignal;
    const { timeColumn: times, valueColumn: values } = this.points;
    const range = { replayFrom: at.from, newFrom: at.newStart, to: at.evalEnd };
    const input = { times, values, limits, params, range, keepFrom: at.nowMs - this.overlapMs };
    advanceDetectors(state, input, this.tally, this.pass);
    // Object.is: before the first signal both are NaN, which `!==` would take for a new signal.
    if (!Object.is(state.lastSignal, signalBefore)) baseline.signalled(state.shiftFrom, limits);
    return detectorView(state, params, limits);
  }

  /** No limits: the points up to `time` count as evaluated, and cannot be gone back over. */
  skip(time: number): void {
    this.rulesKey.limits = undefined;
    forgetCheckpoints(this.state, time);
  }

  /** The time up to which points are past evaluating: with detectors on, the overlap's are not. */
  finalTo(evaluatedTo: number): number {
    const { cusum, ewma } = this.params;
    return cusum.enabled || ewma.enabled ? Math.min(evaluatedTo, this.state.baseTime) : evaluatedTo;
  }
}
