/**
 * Two-sided tabular CUSUM (Page 1954; Montgomery, Introduction to Statistical Quality Control,
 * 9.1) on standardized values z = (x − centre) / sigma:
 *   C+ = max(0, C+ + z − k),  C− = max(0, C− − z − k),
 * a signal when either exceeds h (strictly), after which both restart. k and h are in sigma
 * units. With a fast initial response (Lucas and Crosier 1982) both sums start, and restart,
 * at h/2, which roughly halves the delay to a shift present at the start at almost no cost in
 * chance signals. Pure and incremental: the state is two numbers.
 */
import { expectedSteps, normalCdf } from './normal.ts';

/** CUSUM settings, in sigma units. */
export interface CusumParams {
  /** Reference value (allowance): half the shift to detect fastest, e.g. 0.5 for 1 sigma. */
  readonly k: number;
  /** Decision interval: a sum beyond it signals. */
  readonly h: number;
  /** Fast initial response: start and restart both sums at h/2. */
  readonly fir: boolean;
}

/** The two cumulative sums, in sigma units. */
export interface CusumState {
  upper: number;
  lower: number;
}

/** Which side signalled. */
export type CusumSignal = 'up' | 'down';

/** The state at the start (and after a signal). */
export function cusumStart(p: CusumParams): CusumState {
  const s = p.fir ? p.h / 2 : 0;
  return { upper: s, lower: s };
}

/**
 * Adds one standardized value and returns the side that signals, without the restart: the sums
 * are then the ones that crossed h (what a gauge shows at the signal). {@link cusumStep} restarts.
 */
export function cusumAdd(state: CusumState, z: number, p: CusumParams): CusumSignal | undefined {
  state.upper = Math.max(0, state.upper + z - p.k);
  state.lower = Math.max(0, state.lower - z - p.k);
  return state.upper > p.h ? 'up' : state.lower > p.h ? 'down' : undefined;
}

/** Adds one standardized value; returns the side that signals, and then restarts the sums. */
export function cusumStep(state: CusumState, z: number, p: CusumParams): CusumSignal | undefined {
  const signal = cusumAdd(state, z, p);
  if (signal !== undefined) Object.assign(state, cusumStart(p));
  return signal;
}

/**
 * Average run length of the one-sided upper CUSUM to a mean shift of `shift` sigma, by the
 * Markov chain of Brook and Evans (1972) with `states` states, from a start of `start` (sigma).
 */
export function oneSidedCusumArl(
  p: Pick<CusumParams, 'k' | 'h'>,
  shift: number,
  opts: { readonly start?: number; readonly states?: number } = {},
): number {
  const { start = 0, states = 150 } = opts;
  // State 0 is a sum of 0; state i covers ((i - 0.5) w, (i + 0.5) w], up to h.
  const w = (2 * p.h) / (2 * states - 1);
  const q: number[][] = [];
  for (let i = 0; i < states; i++) {
    const row: number[] = [];
    const from = i * w;
    for (let j = 0; j < states; j++) {
      const hi = j === 0 ? 0.5 * w : (j + 0.5) * w;
      const lo = j === 0 ? Number.NEGATIVE_INFINITY : (j - 0.5) * w;
      // Next sum = from + z - k with z ~ N(shift, 1).
      const cdf = (edge: number) =>
        edge === Number.NEGATIVE_INFINITY ? 0 : normalCdf(edge - from + p.k - shift);
      row.push(cdf(hi) - cdf(lo));
    }
    q.push(row);
  }
  const arl = expectedSteps(q);
  return arl[Math.min(states - 1, Math.round(start / w))] ?? Number.NaN;
}

/**
 * Average run length of the two-sided CUSUM to a shift of `shift` sigma, from the two one-sided
 * ones: 1/ARL = 1/ARL+ + 1/ARL− (exact for a zero start when k is not small; Montgomery 9.1.6).
 */
export function cusumArl(p: CusumParams, shift: number): number {
  const start = p.fir ? p.h / 2 : 0;
  const up = oneSidedCusumArl(p, shift, { start });
  const down = oneSidedCusumArl(p, -shift, { start });
  return 1 / (1 / up + 1 / down);
}
