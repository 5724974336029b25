/**
 * The sequential detectors of a charted series: a CUSUM and an EWMA (src/spc) fed point by point
 * in time order, on values standardized by the chart's current centre and sigma. Their state
 * lives with the series across polls. A series first seen replays its evaluation window to
 * rebuild the state without counting any signal (history is not news, and a restart must not
 * notify again); after that, each point newer than the last judged one steps both detectors
 * once, and a signal is an event counted under `rule="cusum"` or `rule="ewma"`.
 */
import type { ControlConfig } from '../../spc/config.ts';
import { type CusumState, cusumStart, cusumStep } from '../../spc/cusum.ts';
import { type EwmaState, ewmaLimit, ewmaStart, ewmaStep } from '../../spc/ewma.ts';
import type { ControlLimits } from '../../spc/index.ts';

/** Index of the CUSUM's and the EWMA's events after the eight rules'. */
export const CUSUM_EVENT = 8;
export const EWMA_EVENT = 9;
/** Event slots per series: eight rules, CUSUM, EWMA. */
export const EVENT_SLOTS = 10;

/** The detectors of one series. */
export interface SequentialState {
  readonly cusum: CusumState;
  readonly ewma: EwmaState;
  /** False until the state was rebuilt from the series' history (the first poll with limits). */
  ready: boolean;
}

/** Fresh detectors. */
export function createSequential(control: ControlConfig): SequentialState {
  return { cusum: cusumStart(control.cusum), ewma: ewmaStart(), ready: false };
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

/**
 * Steps the detectors over the new points, counting signals into `events` (at
 * {@link CUSUM_EVENT} and {@link EWMA_EVENT}); first replays the history, uncounted, when the
 * state is not ready.
 */
export function advanceSequential(
  state: SequentialState,
  control: ControlConfig,
  input: { readonly values: ArrayLike<number>; readonly limits: ControlLimits; readonly range: AdvanceRange },
  events: Float64Array,
): void {
  const { values, limits, range } = input;
  const { cusum, ewma } = control;
  if (!cusum.enabled && !ewma.enabled) return;
  const step = (i: number, count: boolean) => {
    const z = ((values[i] ?? 0) - limits.center) / limits.sigma;
    if (cusum.enabled && cusumStep(state.cusum, z, cusum) !== undefined && count)
      events[CUSUM_EVENT] = (events[CUSUM_EVENT] ?? 0) + 1;
    if (ewma.enabled && ewmaStep(state.ewma, z, ewma) !== undefined && count)
      events[EWMA_EVENT] = (events[EWMA_EVENT] ?? 0) + 1;
  };
  if (!state.ready) {
    for (let i = range.replayFrom; i < range.newFrom; i++) step(i, false);
    state.ready = true;
  }
  for (let i = range.newFrom; i < range.to; i++) step(i, true);
}

/** What the gauges show of the detectors, against the current limits. */
export interface SequentialView {
  /** C+ and C−, in sigmas; the decision interval h, in sigmas. */
  readonly cusum?: { readonly upper: number; readonly lower: number; readonly h: number };
  /** The EWMA statistic and its current limits, in the measurement's unit. */
  readonly ewma?: { readonly value: number; readonly upper: number; readonly lower: number };
}

/** The detectors' values to export, or nothing before they were rebuilt. */
export function sequentialView(
  state: SequentialState,
  control: ControlConfig,
  limits: ControlLimits,
): SequentialView | undefined {
  if (!state.ready) return undefined;
  const half = ewmaLimit(control.ewma, state.ewma.t) * limits.sigma;
  const centre = limits.center + state.ewma.z * limits.sigma;
  return {
    ...(control.cusum.enabled
      ? { cusum: { upper: state.cusum.upper, lower: state.cusum.lower, h: control.cusum.h } }
      : {}),
    ...(control.ewma.enabled
      ? { ewma: { value: centre, upper: limits.center + half, lower: limits.center - half } }
      : {}),
  };
}
