/**
 * The sequential detectors of a charted series: a CUSUM and an EWMA fed point by point in time
 * order, on values calibrated on the baseline (src/spc/calibration.ts). A series first seen replays
 * its evaluation window without counting signals (history is not news; a restart must not notify
 * again); after that each new point steps both once, and a signal is an event under `rule="cusum"`
 * or `rule="ewma"`.
 *
 * A late point inside the record sync's overlap is put in its place: the detectors go back to the
 * checkpoint before it and run again. Over one such pass the events are the new signals less those
 * no longer given: a moved signal is one event, a vanished one stays counted (counters never go
 * down). A point older than the overlap is not evaluated (the collector counts it as late).
 *
 * Both restart after a signal, so a persisting shift signals again only on new evidence, about one
 * average run length later. Until the next point the gauges show what crossed, not the restart.
 * Limits are widened for the baseline's lag-1 autocorrelation ({@link effectiveParams}); beside the
 * configured CUSUM runs a fast one ({@link FAST_CUSUM}) for large shifts.
 */

import { lowerBound } from '../util/sorted.ts';
import { type Calibration, calibrated, cusumLongRunFactor, fastLongRunFactor } from './calibration.ts';
import { type CusumParams, type CusumSignal, type CusumState, cusumAdd, cusumStart } from './cusum.ts';
import { type EwmaParams, type EwmaState, ewmaAdd, ewmaLimit, ewmaStart } from './ewma.ts';
import type { ControlLimits } from './limits.ts';

/** Index of the CUSUM's and the EWMA's events after the eight rules'. */
export const CUSUM_EVENT = 8;
export const EWMA_EVENT = 9;
/** Event slots per series: eight rules, CUSUM, EWMA. */
export const EVENT_SLOTS = 10;

/**
 * The fast CUSUM beside the configured one: k 1.5 (a 3 sigma shift), h 4.25, values capped at
 * ±3.5 sigma, no FIR. Increments are at most 2, so one wild value cannot set it off, nor two from
 * rest. Brook–Evans chain: in-control ARL 2.30 million on normal data (the pair: 0.89 million), a
 * 3 sigma shift found in 3.92 points (the configured CUSUM alone: 6.5). Its h is widened for the
 * baseline's kurtosis (t5 tails would multiply its chance rate 17 times). Checked in
 * test/spc/fast-cusum.test.ts.
 */
export const FAST_CUSUM: CusumParams = { k: 1.5, h: 4.25, cap: 3.5, fir: false };

/** The detectors' settings of one charted name (plant-wide defaults with its overrides). */
export interface DetectorParams {
  readonly cusum: CusumParams & { readonly enabled: boolean };
  readonly ewma: EwmaParams & { readonly enabled: boolean };
  /** Default {@link FAST_CUSUM}; its signals are CUSUM events, and either signal restarts both. */
  readonly fast?: CusumParams;
}

/**
 * The settings against `limits`, for the baseline's lag-1 autocorrelation φ: the CUSUM's h times
 * ((1 + φ) / (1 − φ))^0.875 ({@link cusumLongRunFactor}), the fast CUSUM's times that to the 0.75
 * ({@link fastLongRunFactor}: it signals on a few values, not a long sum) and the tail widening,
 * the EWMA's L times sqrt((1 + φ(1 − λ)) / (1 − φ(1 − λ))), the asymptotic variance factor of an
 * EWMA of AR(1) data. φ = 0 and no tail widening: the settings as given.
 */
export function effectiveParams(params: DetectorParams, limits: ControlLimits): DetectorParams {
  const phi = limits.calibration?.phi ?? 0;
  const tails = limits.calibration?.tailWidening ?? 1;
  if (phi === 0 && tails === 1) return params;
  const { lambda } = params.ewma;
  const carried = phi * (1 - lambda);
  const widening = cusumLongRunFactor(phi);
  const fast = params.fast ?? FAST_CUSUM;
  return {
    cusum: { ...params.cusum, h: params.cusum.h * widening },
    ewma: { ...params.ewma, L: params.ewma.L * Math.sqrt((1 + carried) / (1 - carried)) },
    fast: { ...fast, h: fast.h * fastLongRunFactor(phi) * tails },
  };
}

/** Steps the configured and the fast CUSUM; the side of either's signal (no restart). */
export function stepCusums(
  main: CusumState,
  fast: CusumState,
  z: number,
  params: DetectorParams,
): CusumSignal | undefined {
  const a = cusumAdd(main, z, params.cusum);
  const b = cusumAdd(fast, z, params.fast ?? FAST_CUSUM);
  return a ?? b;
}

/** The value at `x` as the detectors add it: calibrated on the baseline, or by the given limits. */
export function detectorValue(limits: ControlLimits, x: number): number {
  const c: Calibration | undefined = limits.calibration;
  return c === undefined ? (x - limits.center) / limits.sigma : calibrated(c, x);
}

/** Where the points of one advance lie, as indexes into the series' time-ordered values. */
interface AdvanceRange {
  /** First point of the history to replay when the state is not ready yet. */
  readonly replayFrom: number;
  /** First point not evaluated before. */
  readonly newFrom: number;
  readonly to: number;
}

/** What one advance steps over. */
export interface AdvanceInput {
  readonly times: ArrayLike<number>;
  readonly values: ArrayLike<number>;
  readonly limits: ControlLimits;
  /** The settings from {@link effectiveParams}. */
  readonly params: DetectorParams;
  readonly range: AdvanceRange;
  /** Checkpoints of points at or before this time are dropped: the start of the overlap. */
  readonly keepFrom: number;
}

/** What the point being stepped did when evaluated before; `history`: count nothing. */
type Before = Checkpoint | 'history' | undefined;

/** Where an advance counts signals: events and last signal times per event slot. */
interface Tally {
  readonly events: Float64Array;
  readonly lastTimes: Float64Array;
}

/**
 * The detectors of one series. One pass's state is kept in fields too: a chart keeps one object
 * across polls (fresh closures per poll cost).
 */
export class Detectors {
  cusum: CusumState;
  fast: CusumState;
  ewma: EwmaState = ewmaStart();
  /** What crossed at the last point when it signalled (the state restarted): shown until the next. */
  shownCusum: CusumState | undefined;
  shownEwma: EwmaState | undefined;
  /** False until the state was rebuilt from the series' history (the first poll with limits). */
  ready = false;
  /** Start of each sum's current climb: at a signal, where the shift most likely began. */
  upperFrom = Number.NaN;
  lowerFrom = Number.NaN;
  /** Time of the last signal (either detector), NaN when none. */
  lastSignal = Number.NaN;
  shiftFrom = Number.NaN;
  /** The state after each point evaluated within the overlap, in time order. */
  checkpoints: Checkpoint[] = [];
  /**
   * The state before the first of them; points up to `baseTime` cannot be put in place any more
   * (one that arrives this old was not evaluated and will not be).
   * Undefined: no going back (after a gap in evaluating, e.g. while the chart had no limits).
   */
  base: Checkpoint | undefined;
  baseTime = Number.NEGATIVE_INFINITY;
  private input!: AdvanceInput;
  private out!: Tally;
  private signals = 0;
  private before: Before;
  /** Per detector: new signals and signals no longer given; a moved signal nets one event. */
  private freshCusum = 0;
  private freshEwma = 0;
  private lostCusum = 0;
  private lostEwma = 0;

  constructor(params: DetectorParams) {
    this.cusum = cusumStart(params.cusum);
    this.fast = cusumStart(params.fast ?? FAST_CUSUM);
  }

  /**
   * Steps the detectors over the new points, counting signals into `out.events` and their times
   * into `out.lastTimes`; replays the history uncounted first when the state is not ready.
   */
  advance(input: AdvanceInput, out: Tally): void {
    const { cusum, ewma } = input.params;
    if (!cusum.enabled && !ewma.enabled) return;
    const { times, range } = input;
    this.input = input;
    this.out = out;
    this.freshCusum = 0;
    this.freshEwma = 0;
    this.lostCusum = 0;
    this.lostEwma = 0;
    if (!this.ready) {
      // Rebuilt with the settings in force (a compensated h starts the sums at its half).
      this.cusum = cusumStart(cusum);
      this.fast = cusumStart(input.params.fast ?? FAST_CUSUM);
      this.ewma = ewmaStart();
      this.shownCusum = undefined;
      this.shownEwma = undefined;
      this.checkpoints = [];
      this.baseTime =
        range.replayFrom > 0
          ? (times[range.replayFrom - 1] ?? Number.NEGATIVE_INFINITY)
          : Number.NEGATIVE_INFINITY;
      this.base = checkpoint(this, this.baseTime);
      for (let i = range.replayFrom; i < range.newFrom; i++) this.step(i, 'history');
      this.ready = true;
    } else {
      this.reevaluateLate();
    }
    for (let i = range.newFrom; i < range.to; i++) this.step(i, undefined);
    // A counter never goes down: a signal that disappeared stays counted.
    const cusumEvents = this.freshCusum - this.lostCusum;
    if (cusumEvents > 0) out.events[CUSUM_EVENT] = (out.events[CUSUM_EVENT] ?? 0) + cusumEvents;
    const ewmaEvents = this.freshEwma - this.lostEwma;
    if (ewmaEvents > 0) out.events[EWMA_EVENT] = (out.events[EWMA_EVENT] ?? 0) + ewmaEvents;
    this.prune(input.keepFrom);
    // Nothing of this pass stays reachable between polls.
    this.input = undefined as unknown as AdvanceInput;
    this.out = undefined as unknown as Tally;
    this.before = undefined;
  }

  /** Forgets the checkpoints (the chart skipped points); points up to `time` count as evaluated. */
  forgetCheckpoints(time: number): void {
    this.checkpoints = [];
    this.base = undefined;
    this.baseTime = Math.max(this.baseTime, time);
  }

  /** The detectors' values to export (with the settings in force), or nothing before they were rebuilt. */
  view(params: DetectorParams, limits: ControlLimits): DetectorView | undefined {
    if (!this.ready) return undefined;
    // At a signal, the limits it crossed, not the restarted ones (t = 0: zero width).
    const e = this.shownEwma ?? this.ewma;
    // On the calibrated scale: the EWMA of skewed data is shown as if its values were normal.
    const scale = limits.calibration ?? limits;
    const half = ewmaLimit(params.ewma, e.t) * scale.sigma;
    const centre = scale.center + e.z * scale.sigma;
    const c = this.shownCusum ?? this.cusum;
    const phi = limits.calibration?.phi ?? 0;
    // Fields set in place, not spread in: a view is made for every chart at every poll.
    const view: { cusum?: DetectorView['cusum']; ewma?: DetectorView['ewma'] } = {};
    if (params.cusum.enabled)
      view.cusum = { upper: c.upper, lower: c.lower, h: params.cusum.h, widening: cusumLongRunFactor(phi) };
    if (params.ewma.enabled)
      view.ewma = { value: centre, upper: scale.center + half, lower: scale.center - half };
    return view;
  }

  private restore(from: Checkpoint): void {
    this.cusum = { upper: from.upper, lower: from.lower };
    this.fast = { upper: from.fastUpper, lower: from.fastLower };
    this.ewma = { z: from.z, t: from.t };
    this.upperFrom = from.upperFrom;
    this.lowerFrom = from.lowerFrom;
    this.shownCusum = from.shownCusum;
    this.shownEwma = from.shownEwma;
  }

  /** Steps one point; `earlier` is what it did when evaluated before (`history`: counts nothing). */
  private step(i: number, earlier: Before): void {
    const { times, values, limits, params } = this.input;
    const { cusum, ewma } = params;
    const t = times[i] ?? Number.NaN;
    this.signals = 0;
    this.before = earlier;
    const z = detectorValue(limits, values[i] ?? 0);
    this.shownCusum = undefined;
    this.shownEwma = undefined;
    if (cusum.enabled) this.stepCusum(t, z);
    if (ewma.enabled) {
      const e = this.ewma;
      const side = ewmaAdd(e, z, ewma);
      if (side !== undefined) {
        this.signalled(EWMA_EVENT, t, side);
        this.shownEwma = { z: e.z, t: e.t };
        this.ewma = ewmaStart();
      }
    }
    const before = this.before;
    if (before !== undefined && before !== 'history') {
      if (before.signals & 1 && !(this.signals & 1)) this.lostCusum++;
      if (before.signals & 2 && !(this.signals & 2)) this.lostEwma++;
    }
    this.checkpoints.push(checkpoint(this, t, this.signals));
  }

  /** Steps both CUSUMs with the point at `t` (calibrated value `z`); a signal restarts both. */
  private stepCusum(t: number, z: number): void {
    const params = this.input.params;
    const c = this.cusum;
    if (c.upper === 0 || Number.isNaN(this.upperFrom)) this.upperFrom = t;
    if (c.lower === 0 || Number.isNaN(this.lowerFrom)) this.lowerFrom = t;
    const side = stepCusums(c, this.fast, z, params);
    if (side === undefined) return;
    this.signalled(CUSUM_EVENT, t, side);
    this.shownCusum = { upper: c.upper, lower: c.lower };
    this.cusum = cusumStart(params.cusum);
    this.fast = cusumStart(params.fast ?? FAST_CUSUM);
    this.upperFrom = Number.NaN;
    this.lowerFrom = Number.NaN;
  }

  /** A signal at the point being stepped: an event unless history or a signal it gave before. */
  private signalled(slot: number, t: number, side: 'up' | 'down'): void {
    const bit = slot === CUSUM_EVENT ? 1 : 2;
    this.signals |= bit;
    const before = this.before;
    // History is context: its signals count nothing and date nothing an alert could read.
    if (before !== 'history') {
      if (!(before !== undefined && before.signals & bit)) {
        if (bit === 1) this.freshCusum++;
        else this.freshEwma++;
      }
      if (!(this.out.lastTimes[slot]! >= t)) this.out.lastTimes[slot] = t;
    }
    if (!(this.lastSignal >= t)) this.lastSignal = t;
    // The CUSUM's climb on the signal's side dates the shift; an EWMA alone dates it at its signal.
    const from = this.input.params.cusum.enabled ? (side === 'up' ? this.upperFrom : this.lowerFrom) : t;
    this.shiftFrom = Number.isNaN(from) ? t : Math.min(from, t);
  }

  /** Puts late points within the checkpoints' span in place: restore, then step again in order. */
  private reevaluateLate(): void {
    if (this.base === undefined) return;
    const { times } = this.input;
    const { newFrom } = this.input.range;
    const old = this.checkpoints;
    // Times are whole milliseconds: the first point after the base's.
    const from = lowerBound(times, this.baseTime + 1, { hi: newFrom });
    if (newFrom - from <= old.length) return;
    // The first point that is not the next evaluated one (times ascending, equal times in order).
    let k = from;
    let j = 0;
    while (k < newFrom && j < old.length && times[k] === old[j]?.time) {
      k++;
      j++;
    }
    if (k === newFrom) return;
    this.restore(j === 0 ? this.base : old[j - 1]!);
    this.checkpoints = old.slice(0, j);
    for (let i = k; i < newFrom; i++) {
      const before = j < old.length && times[i] === old[j]?.time ? old[j++] : undefined;
      this.step(i, before);
    }
  }

  /** Drops the checkpoints of points at or before `keepFrom`; the last one dropped becomes the base. */
  private prune(keepFrom: number): void {
    const checkpoints = this.checkpoints;
    let n = 0;
    while (n < checkpoints.length && checkpoints[n]!.time <= keepFrom) n++;
    if (n === 0) return;
    const last = checkpoints[n - 1]!;
    if (this.base !== undefined) this.base = last;
    this.baseTime = last.time;
    // In place: a new array per chart and poll was garbage for every poll.
    for (let i = n; i < checkpoints.length; i++) checkpoints[i - n] = checkpoints[i]!;
    checkpoints.length -= n;
  }
}

/** What the gauges show of the detectors, against the current limits. */
export interface DetectorView {
  /** C+ and C− in sigmas; h in force is the configured `h` times `widening` (1 without φ). */
  readonly cusum?: {
    readonly upper: number;
    readonly lower: number;
    readonly h: number;
    readonly widening: number;
  };
  /** The EWMA statistic and its current limits, in the measurement's unit. */
  readonly ewma?: { readonly value: number; readonly upper: number; readonly lower: number };
}

/**
 * Everything the detectors carry from one point to the next, after the point at `time`;
 * `signals` says which detectors signalled at the point: 1 the CUSUM, 2 the EWMA.
 */
function checkpoint(d: Detectors, time: number, signals = 0) {
  return {
    time,
    signals,
    upper: d.cusum.upper,
    lower: d.cusum.lower,
    fastUpper: d.fast.upper,
    fastLower: d.fast.lower,
    z: d.ewma.z,
    t: d.ewma.t,
    upperFrom: d.upperFrom,
    lowerFrom: d.lowerFrom,
    shownCusum: d.shownCusum,
    shownEwma: d.shownEwma,
  } as const;
}

type Checkpoint = ReturnType<typeof checkpoint>;
