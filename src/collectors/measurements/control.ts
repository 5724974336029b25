/**
 * Control charts of the measurements collector: for every held series whose name matches
 * `measurements.control.names`, the I-MR limits of its baseline and the Nelson rules over the
 * evaluation window (engine: src/spc), computed from the store's time-ordered rows in slices so
 * that scrapes keep their turns. It also owns how long charted names are kept: the store holds
 * other names for the longest window only, charted names back to the start of their baseline.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import type { Family, LabelSet } from '../../exposition/model.ts';
import type { Topology } from '../../model/topology.ts';
import type { RecordStore } from '../../records/types.ts';
import type { BaselineGap, ChartSpec, ControlLimits, LimitsResult } from '../../spc/index.ts';
import { chartLimits, chartRanges, createRuleResults, evaluateRules } from '../../spc/index.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import { lowerBound } from '../../util/sorted.ts';
import type { Turns } from '../../util/turns.ts';
import type { FlaggedChart } from '../collector.ts';
import { type ControlOutcome, controlFamilies, EVENT_RULE_NAMES } from './control-families.ts';
import {
  advanceSequential,
  createSequential,
  EVENT_SLOTS,
  effectiveParams,
  forgetCheckpoints,
  type SequentialParams,
  type SequentialState,
  sequentialView,
  settledTo,
} from './sequential.ts';
import { type MeasurementSeries, type MeasurementStore, stationKey, VALUE } from './store.ts';

/** Points charted between two turns of the event loop (a few milliseconds of work). */
const POINTS_PER_TURN = 50_000;

/** What the measurements job needs of the charts. */
export interface ControlCharts {
  /** The store the record sync must use: it keeps each name as long as its chart needs. */
  readonly store: RecordStore<MeasurementRecord>;
  /**
   * The oldest record time this poll must fetch and keep, given the start of the longest
   * window; call it before the sync, every poll. Without charted names: `windowFromMs`.
   */
  retainFrom(nowMs: number, windowFromMs: number): number;
  /** Charts every held series of the topology's stations at the poll. */
  families(topology: Topology, poll: ControlPoll): Promise<Family[]>;
  /** The charts flagged at the last poll, for the status page. */
  flagged(): readonly FlaggedChart[];
}

/** One poll of the charts. */
export interface ControlPoll {
  /** Time of the poll, Unix ms: the charts are computed as of then. */
  readonly nowMs: number;
  /**
   * The poll fetched without failures: a frozen baseline's limits are computed once, from
   * complete data.
   */
  readonly complete: boolean;
}

interface Entry {
  readonly index: number;
  readonly spec: ChartSpec;
  readonly params: SequentialParams;
}

/**
 * A rolling baseline held after a CUSUM or EWMA signal: the limits in force at the signal stay
 * until no signal came for `measurements.control.hold`, so that the baseline does not learn the
 * shift it has just found; then the shift's points stay out of the baseline (a gap).
 */
interface Hold {
  /** Estimated start of the shift (the CUSUM's climb), Unix ms. */
  readonly from: number;
  readonly limits: ControlLimits;
}

/** A span of record times left out of a rolling baseline: a shift that was held. */
interface TimeGap {
  readonly from: number;
  readonly to: number;
}

interface SeriesState {
  /** Last violation time per event slot (rules, CUSUM, EWMA), NaN when none since the job started. */
  readonly lastTimes: Float64Array;
  /**
   * Violation events per rule since the job started: points that completed the rule when
   * they were first evaluated. Each point is evaluated for events once, when it is newer than
   * {@link SeriesState.evaluatedTo}, so a sliding window or a moving baseline never counts it again.
   */
  readonly events: Float64Array;
  /**
   * Time of the newest point evaluated for events. Starts at the poll that first sees the
   * series: the history a (re)started exporter replays is context, never events, so a restart
   * does not notify again.
   */
  evaluatedTo: number;
  /** The CUSUM and EWMA of the series. */
  readonly sequential: SequentialState;
  hold: Hold | undefined;
  /** Held shifts still inside the baseline's reach, oldest first. */
  gaps: TimeGap[];
  /**
   * Points judged at the last poll: how many lay in `[from, to]`. More there at a later poll are
   * points that arrived late, after newer ones were judged: counted, never judged.
   */
  judged: JudgedSpan | undefined;
  /** Late points since the job started. */
  late: number;
  hadLimits: boolean;
  seenAt: number;
}

/** Creates the charts of one measurements job over its store. */
export function createControlCharts(
  ctx: { readonly config: Config; readonly logger: Logger; readonly turns: Turns },
  store: MeasurementStore,
): ControlCharts {
  const control = ctx.config.measurements.control;
  /** Records up to this late are read again by the next poll: the detectors put them in place. */
  const overlapMs = ctx.config.measurements.overlapMs;
  const specs: ChartSpec[] = control.names.map((n) => ({
    baseline: n.baseline,
    minSamples: n.minSamples,
    evaluationWindowMs: control.evaluationWindowMs,
    rules: control.rules,
    compensate: control.compensate,
  }));
  const entries = new Map<string, Entry | null>();
  const entryOf = (name: string): Entry | null => {
    let e = entries.get(name);
    if (e === undefined) {
      const index = control.names.findIndex((n) => n.pattern.test(name));
      const names = control.names[index];
      e =
        index < 0 || names === undefined
          ? null
          : { index, spec: specs[index] as ChartSpec, params: { cusum: names.cusum, ewma: names.ewma } };
      entries.set(name, e);
    }
    return e;
  };
  // Frozen baselines: limits computed once per series, then the baseline's records may go.
  const frozenLimits = new Map<string, LimitsResult>();
  const frozenDone = new Set<number>();
  const states = new Map<string, SeriesState>();
  let keeps = new Map<string, number>();
  let windowFrom = Number.NEGATIVE_INFINITY;
  let stationIds: ReadonlySet<string> = new Set();
  const keepFor = (name: string) => keeps.get(name) ?? windowFrom;
  const scratch = { times: new Float64Array(1024), values: new Float64Array(1024) };
  const results = createRuleResults();
  const fresh = createRuleResults();
  /**
   * Each series' label set and its event counters' ones (`rule` 1..8, cusum, ewma), kept while
   * the station's labels are the same object (a discovery builds new ones): building them anew
   * for every chart on every poll was a good part of the charts' cost per poll.
   */
  const labelCache = new Map<MeasurementSeries, SeriesLabels & { base: LabelSet; seenAt: number }>();
  let pollAt = 0;
  const labelsOf = (station: LabelSet, series: MeasurementSeries): SeriesLabels => {
    const hit = labelCache.get(series);
    if (hit !== undefined && hit.base === station) {
      hit.seenAt = pollAt;
      return hit;
    }
    const withName = station.with('metric', series.name);
    const labels = series.slot === null ? withName : withName.with('slot', series.slot);
    const entry = {
      base: station,
      labels,
      events: EVENT_RULE_NAMES.map((r) => labels.with('rule', r)),
      seenAt: pollAt,
    };
    labelCache.set(series, entry);
    return entry;
  };
  let established = 0;
  let flagged: FlaggedChart[] = [];

  /** The oldest time a charted name needs: its baseline, or one extra window of context. */
  function chartFrom(entry: Entry, nowMs: number): number {
    const b = entry.spec.baseline;
    const evalFrom = nowMs - entry.spec.evaluationWindowMs;
    if (b.kind === 'rolling') return evalFrom - b.durationMs;
    if (b.kind === 'frozen' && !frozenDone.has(entry.index)) return b.fromMs;
    // Runs that started before the window are seen when they complete inside it.
    return evalFrom - entry.spec.evaluationWindowMs;
  }

  const retaining: RecordStore<MeasurementRecord> = {
    // A first poll fetches every name back to the oldest baseline; other names' old records
    // are dropped here, before they take memory.
    add: (records) => store.add(records.filter((r) => r.time >= keepFor(r.name))),
    evictBefore(t) {
      for (const id of stationIds)
        for (const s of store.seriesOf(id)) s.rows.evictBefore(Math.max(t, keepFor(s.name)));
      store.evictBefore(t);
    },
    retainStations(ids) {
      stationIds = ids;
      store.retainStations(ids);
    },
    size: () => store.size(),
  };

  /** Charts one series of `station` at the poll; nothing when its name is not charted. */
  function chart(series: MeasurementSeries, station: LabelSet, { nowMs, complete }: ControlPoll) {
    const entry = entryOf(series.name);
    if (entry === null) return undefined;
    const { labels, events: eventLabels } = labelsOf(station, series);
    const key = `${stationKey(series.stationId)}\u0000${series.name}\u0000${series.slot ?? ''}`;
    const n = copyFinite(series, scratch);
    const times = scratch.times.subarray(0, n);
    const values = scratch.values.subarray(0, n);
    const { spec } = entry;
    const b = spec.baseline;
    const ranges = chartRanges(times, spec, nowMs);
    let state = states.get(key);
    if (state !== undefined && b.kind === 'rolling')
      releaseHold(state, nowMs, nowMs - spec.evaluationWindowMs - b.durationMs);
    let limits: LimitsResult | undefined = b.kind === 'frozen' ? frozenLimits.get(key) : undefined;
    if (state?.hold !== undefined) limits = { ok: true, limits: state.hold.limits };
    if (limits === undefined) {
      const gaps = b.kind === 'rolling' && state !== undefined ? indexGaps(times, state.gaps) : [];
      limits = chartLimits(values, ranges, { spec, gaps });
      if (b.kind === 'frozen' && complete && nowMs >= b.toMs) frozenLimits.set(key, limits);
    }
    // A point belongs to the chart of the limits current when it was recorded: points of a
    // frozen baseline period are phase I, judged by no rule (not even as context).
    const chartStart = b.kind === 'frozen' ? lowerBound(times, b.toMs) : 0;
    const evalStart = Math.max(ranges.evalStart, chartStart);
    if (state === undefined) {
      state = {
        lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
        events: new Float64Array(EVENT_SLOTS),
        evaluatedTo: nowMs,
        sequential: createSequential(entry.params),
        hold: undefined,
        gaps: [],
        judged: undefined,
        late: 0,
        hadLimits: limits.ok,
        seenAt: nowMs,
      };
      states.set(key, state);
      if (limits.ok) established++;
    } else if (limits.ok !== state.hadLimits) {
      // A new baseline resets the chart: logged per series (first limits are counted, below).
      const where = { station_id: series.stationId, name: series.name, slot: series.slot };
      if (limits.ok)
        ctx.logger.info({ ...where, baseline: b.kind, ...summary(limits) }, 'new control baseline');
      else ctx.logger.info({ ...where, reason: limits.reason }, 'control limits lost');
      state.hadLimits = limits.ok;
    }
    state.seenAt = nowMs;
    countLate(state, times);
    // Points newer than the last evaluated one, up to now; older ones that arrive late were
    // context for runs already judged, and are not judged again.
    const newStart = Math.max(chartStart, lowerBound(times, state.evaluatedTo + 1, { hi: ranges.evalEnd }));
    const newest = ranges.evalEnd > 0 ? (times[ranges.evalEnd - 1] ?? state.evaluatedTo) : state.evaluatedTo;
    if (!limits.ok) {
      // Without limits nothing is judged, and these points will not be judged later either.
      state.evaluatedTo = Math.max(state.evaluatedTo, newest);
      forgetCheckpoints(state.sequential, state.evaluatedTo);
      state.judged = judgedSpan(times, nowMs - spec.evaluationWindowMs, state.evaluatedTo);
      return {
        outcome: {
          labels,
          eventLabels,
          limits: undefined,
          counts: NO_COUNTS,
          lastTimes: state.lastTimes,
          events: state.events,
          late: state.late,
        },
        work: n,
      };
    }
    evaluateRules(
      values,
      { evalStart, end: ranges.evalEnd, contextStart: chartStart },
      { limits: limits.limits, rules: spec.rules, out: results },
    );
    const counts = Int32Array.from(results.count);
    for (let r = 0; r < 8; r++) {
      const i = results.lastIndex[r] ?? -1;
      const t = i < 0 ? Number.NaN : (times[i] ?? Number.NaN);
      const prev = state.lastTimes[r] ?? Number.NaN;
      if (!Number.isNaN(t) && !(prev >= t)) state.lastTimes[r] = t;
    }
    if (newStart < ranges.evalEnd) {
      evaluateRules(
        values,
        { evalStart: newStart, end: ranges.evalEnd, contextStart: chartStart },
        { limits: limits.limits, rules: spec.rules, out: fresh },
      );
      for (let r = 0; r < 8; r++) state.events[r] = (state.events[r] ?? 0) + (fresh.count[r] ?? 0);
    }
    const params = effectiveParams(entry.params, limits.limits);
    const signalBefore = state.sequential.lastSignal;
    advanceSequential(
      state.sequential,
      {
        times,
        values,
        limits: limits.limits,
        params,
        range: { replayFrom: evalStart, newFrom: newStart, to: ranges.evalEnd },
        keepFrom: nowMs - overlapMs,
      },
      state,
    );
    if (b.kind === 'rolling' && state.sequential.lastSignal !== signalBefore && control.holdMs > 0)
      holdAt(state, limits.limits);
    state.evaluatedTo = Math.max(state.evaluatedTo, newest);
    // With the detectors on, points inside the overlap are put in their place, not late.
    const sequentialOn = params.cusum.enabled || params.ewma.enabled;
    const settled = sequentialOn
      ? Math.min(state.evaluatedTo, settledTo(state.sequential))
      : state.evaluatedTo;
    state.judged = judgedSpan(times, nowMs - spec.evaluationWindowMs, settled);
    const sequential = sequentialView(state.sequential, params, limits.limits);
    return {
      outcome: {
        labels,
        eventLabels,
        limits: limits.limits,
        counts,
        lastTimes: state.lastTimes,
        events: state.events,
        late: state.late,
        ...(sequential ? { sequential } : {}),
      },
      work: n,
    };
  }

  return {
    store: control.names.length === 0 ? store : retaining,
    retainFrom(nowMs, windowFromMs) {
      windowFrom = windowFromMs;
      const next = new Map<string, number>();
      let oldest = windowFromMs;
      for (const { name } of ctx.config.measurements.names) {
        const entry = entryOf(name);
        if (entry === null) continue;
        // The store still holds the longest window for the statistics.
        const from = Math.min(windowFromMs, chartFrom(entry, nowMs));
        next.set(name, from);
        oldest = Math.min(oldest, from);
      }
      keeps = next;
      return oldest;
    },
    flagged: () => flagged,
    async families(topology, poll) {
      if (control.names.length === 0) return [];
      const { nowMs } = poll;
      pollAt = nowMs;
      const outcomes: ControlOutcome[] = [];
      const flags: FlaggedChart[] = [];
      let work = 0;
      for (const station of topology.stations) {
        for (const series of store.seriesOf(station.id)) {
          const done = chart(series, station.labels, poll);
          if (done === undefined) continue;
          outcomes.push(done.outcome);
          const flag = flagOf(station.name, series, done.outcome.limits);
          if (flag !== undefined) flags.push(flag);
          work += done.work;
          if (work >= POINTS_PER_TURN) {
            work = 0;
            await ctx.turns.yieldToLoop();
          }
        }
      }
      flagged = flags;
      markFrozenDone(poll);
      if (established > 0) ctx.logger.info({ series: established }, 'control baselines established');
      established = 0;
      for (const [key, s] of states) if (s.seenAt !== nowMs) states.delete(key);
      for (const [series, l] of labelCache) if (l.seenAt !== nowMs) labelCache.delete(series);
      return controlFamilies(outcomes, control);
    },
  };

  /**
   * Ends a hold when no signal came for `hold` (the shift's points become a gap of the baseline),
   * or when the shift has lasted a whole baseline: then it is the process's new level, and the
   * baseline learns it. Gaps older than the baseline are dropped.
   */
  function releaseHold(state: SeriesState, nowMs: number, baselineFrom: number) {
    const hold = state.hold;
    const last = state.sequential.lastSignal;
    if (hold !== undefined && hold.from < baselineFrom) state.hold = undefined;
    else if (hold !== undefined && nowMs - last > control.holdMs) {
      state.hold = undefined;
      state.gaps.push({ from: hold.from, to: last });
    }
    if (state.gaps.length > 0) state.gaps = state.gaps.filter((g) => g.to >= baselineFrom);
  }

  function holdAt(state: SeriesState, limits: ControlLimits) {
    const from = state.sequential.shiftFrom;
    state.hold = { from: Math.min(from, state.hold?.from ?? from), limits: state.hold?.limits ?? limits };
  }

  function markFrozenDone({ nowMs, complete }: ControlPoll) {
    if (!complete) return;
    specs.forEach((spec, index) => {
      const b = spec.baseline;
      if (b.kind !== 'frozen' || frozenDone.has(index) || nowMs < b.toMs) return;
      frozenDone.add(index);
      ctx.logger.info(
        {
          pattern: control.names[index]?.pattern.source,
          from: new Date(b.fromMs).toISOString(),
          to: new Date(b.toMs).toISOString(),
        },
        'frozen control baseline computed; its records are no longer kept',
      );
    });
  }
}

const NO_COUNTS = new Int32Array(8);

/** A series' labels, and its event counters' (one per {@link EVENT_RULE_NAMES} entry). */
interface SeriesLabels {
  readonly labels: LabelSet;
  readonly events: readonly LabelSet[];
}

/** The series' flags, when its baseline breaks an assumption of the documented rates. */
function flagOf(
  station: string,
  series: MeasurementSeries,
  l: ControlLimits | undefined,
): FlaggedChart | undefined {
  if (l === undefined) return undefined;
  const phi = l.autocorrelation;
  const autocorrelated = phi !== undefined && l.autocorrelated === true;
  if (!autocorrelated && l.quantized !== true) return undefined;
  return {
    station,
    stationId: series.stationId,
    metric: series.name,
    slot: series.slot,
    ...(autocorrelated ? { autocorrelation: { phi, compensated: l.compensatedPhi !== undefined } } : {}),
    ...(l.quantized === true && l.resolution !== undefined
      ? { quantized: { resolution: l.resolution, sigma: l.sigma } }
      : {}),
  };
}

/** The gaps as index ranges of the time-ordered points (each `[from, to]`, both ends included). */
function indexGaps(times: ArrayLike<number>, gaps: readonly TimeGap[]): BaselineGap[] {
  return gaps.map((g) => ({ start: lowerBound(times, g.from), end: lowerBound(times, g.to + 1) }));
}

/** Counts the points that appeared, since the last poll, among those already judged then. */
function countLate(state: SeriesState, times: ArrayLike<number>) {
  const j = state.judged;
  if (j === undefined) return;
  const now = lowerBound(times, j.to + 1) - lowerBound(times, j.from);
  if (now > j.count) state.late += now - j.count;
}

/** How many of a series' points lay in `[from, to]` when they were judged. */
interface JudgedSpan {
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

/**
 * How many points of the evaluation window, from `fromMs` up to `to` (the points past going back
 * over), there are at this poll, to remember: more there later arrived late and are never judged.
 */
function judgedSpan(times: ArrayLike<number>, fromMs: number, to: number): JudgedSpan {
  return { from: fromMs, to, count: lowerBound(times, to + 1) - lowerBound(times, fromMs) };
}

function summary(l: LimitsResult) {
  return l.ok ? { center: l.limits.center, sigma: l.limits.sigma, samples: l.limits.samples } : {};
}

/** Copies the series' finite values (and their times) into `into`, growing it; returns the count. */
function copyFinite(series: MeasurementSeries, into: { times: Float64Array; values: Float64Array }): number {
  const rows = series.rows;
  if (into.times.length < rows.length) {
    const size = Math.max(rows.length, into.times.length * 2);
    into.times = new Float64Array(size);
    into.values = new Float64Array(size);
  }
  let n = 0;
  for (let i = 0; i < rows.length; i++) {
    const v = rows.value(VALUE, i);
    // Non-numeric records (PASS, empty) are not points of the chart.
    if (!Number.isFinite(v)) continue;
    into.times[n] = rows.time(i);
    into.values[n] = v;
    n++;
  }
  return n;
}
