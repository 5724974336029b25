/**
 * Two-sided tabular CUSUM (Page 1954; Montgomery, Introduction to Statistical Quality Control,
 * 9.1) on standardized values: C+ = max(0, C+ + z − k), C− = max(0, C− − z − k), a signal when
 * either exceeds h, then both restart. A fast initial response (Lucas and Crosier 1982) starts
 * both at h/2, roughly halving the delay to a shift present at the start. A cap winsorizes z
 * (Hawkins and Olwell 1998, 5.3): one wild point adds at most cap − k, while a 1 or 2 sigma
 * shift is found almost as fast. Run lengths by Markov chain: test/helpers/run-length.ts.
 */

/** CUSUM settings, in sigma units. */
export interface CusumParams {
  /** Reference value (allowance): half the shift to detect fastest, e.g. 0.5 for 1 sigma. */
  readonly k: number;
  readonly h: number;
  /** Fast initial response: start and restart both sums at h/2. */
  readonly fir: boolean;
  /** Standardized values beyond ±cap count as ±cap; none when absent. */
  readonly cap?: number | undefined;
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

/** Adds one value; returns the side that signals, without the restart (the caller restarts). */
export function cusumAdd(state: CusumState, value: number, p: CusumParams): CusumSignal | undefined {
  const z = p.cap === undefined ? value : Math.max(-p.cap, Math.min(p.cap, value));
  state.upper = Math.max(0, state.upper + z - p.k);
  state.lower = Math.max(0, state.lower - z - p.k);
  return state.upper > p.h ? 'up' : state.lower > p.h ? 'down' : undefined;
}
