/**
 * The sequential detectors of a charted series: a CUSUM and an EWMA (src/spc) fed point by point
 * in time order, on values standardized by the chart's current centre and sigma. Their state
 * lives with the series across polls. A series first seen replays its evaluation window to
 * rebuild the state without counting any signal (history is not news, and a restart must not
 * notify again); after that, each point newer than the last judged one steps both detectors
 * once, and a signal is an event counted under `rule="cusum"` or `rule="ewma"`.
 *
 * A baseline flagged as autocorrelated (φ > 0.1) is compensated here too: its sigma is already
 * the process sigma (src/spc/limits.ts), and the detectors' limits are widened by the long-run
 * variance of an AR(1) process: h × (1 + φ) / (1 − φ) for the CUSUM, L × sqrt((1 + φ(1 − λ)) /
 * (1 − φ(1 − λ))) for the EWMA (the asymptotic variance of an EWMA of AR(1) data).
 */
import { type CusumParams, type CusumState, cusumStart, cusumStep } from '../../spc/cusum.ts';
import { type EwmaParams, type EwmaState, ewmaLimit, ewmaStart, ewmaStep } from '../../spc/ewma.ts';
import type { ControlLimits } from '../../spc/index.ts';

/** Index of the CUSUM's and the EWMA's events after the eight rules'. */
export const CUSUM_EVENT = 8;
export const EWMA_EVENT = 9;
/** Event slots per series: eight rules, CUSUM, EWMA. */
export const EVENT_SLOTS = 10;

/** The detectors' settings of one charted name (plant-wide defaults with its overrides). */
export interface SequentialParams {
  readonly cusum: CusumParams & { readonly enabled: boolean };
  readonly ewma: EwmaParams & { readonly enabled: boolean };
}

/** The detectors of one series. */
export interface SequentialState {
  cusum: CusumState;
  readonly ewma: EwmaState;
  /** False until the state was rebuilt from the series' history (the first poll with limits). */
  ready: boolean;
  /**
   * Time of the first point of the upper and the lower sum's current climb (the point that
   * lifted it from 0, or the (re)start): at a signal, where the shift most likely began.
   */
  upperFrom: number;
  lowerFrom: number;
  /** Time of the last signal (either detector), NaN when none. */
  lastSignal: number;
  /** The estimated start of the shift the last signal found. */
  shiftFrom: number;
}

/** Fresh detectors. */
export function createSequential(params: SequentialParams): SequentialState {
  return {
    cusum: cusumStart(params.cusum),
    ewma: ewmaStart(),
    ready: false,
    upperFrom: Number.NaN,
    lowerFrom: Number.NaN,
    lastSignal: Number.NaN,
    shiftFrom: Number.NaN,
  };
}

/**
 * The settings to use against `limits`: widened for the autocorrelation the limits were
 * compensated for (none: the settings as given).
 */
export function effectiveParams(params: SequentialParams, limits: ControlLimits): SequentialParams {
  const phi = limits.compensatedPhi ?? 0;
  if (phi === 0) return params;
  const { lambda } = params.ewma;
  const carried = phi * (1 - lambda);
  return {
    cusum: { ...params.cusum, h: (params.cusum.h * (1 + phi)) / (1 - phi) },
    ewma: { ...params.ewma, L: params.ewma.L * Math.sqrt((1 + carried) / (1 - carried)) },
  };
}

/** Where the points of one advance lie, as indexes into the series' time-ordered values. */
export interface AdvanceRange {
  /** First point of the history to replay when the state is not ready yet. */
  readonly replayFrom: number;
  /** First point not judged before. */
  readonly newFrom: number;
  /** End (exclusive). */
  readonly to: number;
}

/** What one advance steps over. */
export interface AdvanceInput {
  readonly times: ArrayLike<number>;
  readonly values: ArrayLike<number>;
  readonly limits: ControlLimits;
  /** The settings from {@link effectiveParams}. */
  readonly params: SequentialParams;
  readonly range: AdvanceRange;
}

/**
 * Steps the detectors over the new points, counting signals into `events` (at
 * {@link CUSUM_EVENT} and {@link EWMA_EVENT}); first replays the history, uncounted, when the
 * state is not ready. Signals of both kinds set {@link SequentialState.lastSignal} and
 * {@link SequentialState.shiftFrom}; `lastTimes` gets each detector's last signal time.
 */
export function advanceSequential(
  state: SequentialState,
  input: AdvanceInput,
  out: { readonly events: Float64Array; readonly lastTimes: Float64Array },
): void {
  const { times, values, limits, params, range } = input;
  const { cusum, ewma } = params;
  if (!cusum.enabled && !ewma.enabled) return;
  const signalled = (slot: number, t: number, side: 'up' | 'down', count: boolean) => {
    if (count) out.events[slot] = (out.events[slot] ?? 0) + 1;
    out.lastTimes[slot] = t;
    state.lastSignal = t;
    // The CUSUM's climb on the signal's side dates the shift; an EWMA alone dates it at its signal.
    const from = cusum.enabled ? (side === 'up' ? state.upperFrom : state.lowerFrom) : t;
    state.shiftFrom = Number.isNaN(from) ? t : Math.min(from, t);
  };
  const step = (i: number, count: boolean) => {
    const t = times[i] ?? Number.NaN;
    const z = ((values[i] ?? 0) - limits.center) / limits.sigma;
    if (cusum.enabled) {
      const c = state.cusum;
      if (c.upper === 0 || Number.isNaN(state.upperFrom)) state.upperFrom = t;
      if (c.lower === 0 || Number.isNaN(state.lowerFrom)) state.lowerFrom = t;
      const side = cusumStep(c, z, cusum);
      if (side !== undefined) {
        signalled(CUSUM_EVENT, t, side, count);
        // Restarted: the next climbs start at the next point.
        state.upperFrom = Number.NaN;
        state.lowerFrom = Number.NaN;
      }
    }
    if (ewma.enabled) {
      const side = ewmaStep(state.ewma, z, ewma);
      if (side !== undefined) signalled(EWMA_EVENT, t, side, count);
    }
  };
  if (!state.ready) {
    // Rebuilt with the settings in force (a compensated h starts the sums at its half).
    state.cusum = cusumStart(cusum);
    for (let i = range.replayFrom; i < range.newFrom; i++) step(i, false);
    state.ready = true;
  }
  for (let i = range.newFrom; i < range.to; i++) step(i, true);
}

/** What the gauges show of the detectors, against the current limits. */
export interface SequentialView {
  /** C+ and C−, in sigmas; the decision interval h in force, in sigmas. */
  readonly cusum?: { readonly upper: number; readonly lower: number; readonly h: number };
  /** The EWMA statistic and its current limits, in the measurement's unit. */
  readonly ewma?: { readonly value: number; readonly upper: number; readonly lower: number };
}

/** The detectors' values to export (with the settings in force), or nothing before they were rebuilt. */
export function sequentialView(
  state: SequentialState,
  params: SequentialParams,
  limits: ControlLimits,
): SequentialView | undefined {
  if (!state.ready) return undefined;
  const half = ewmaLimit(params.ewma, state.ewma.t) * limits.sigma;
  const centre = limits.center + state.ewma.z * limits.sigma;
  return {
    ...(params.cusum.enabled
      ? { cusum: { upper: state.cusum.upper, lower: state.cusum.lower, h: params.cusum.h } }
      : {}),
    ...(params.ewma.enabled
      ? { ewma: { value: centre, upper: limits.center + half, lower: limits.center - half } }
      : {}),
  };
}
