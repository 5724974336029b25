/**
 * Two-sided tabular CUSUM (Page 1954; Montgomery, Introduction to Statistical Quality Control,
 * 9.1) on standardized values z = (x − centre) / sigma:
 *   C+ = max(0, C+ + z − k),  C− = max(0, C− − z − k),
 * a signal when either exceeds h (strictly), after which both restart. k and h are in sigma
 * units. With a fast initial response (Lucas and Crosier 1982) both sums start, and restart,
 * at h/2, which roughly halves the delay to a shift present at the start at almost no cost in
 * chance signals. With a cap, a standardized value beyond ±cap counts as ±cap (winsorized;
 * Hawkins and Olwell 1998, 5.3): one wild point (a failing unit's value, a glitch) then adds at
 * most cap − k to a sum, so a few of them cannot signal alone, while a real shift of 1 or 2
 * sigma, whose points rarely pass 3 sigma, is found almost as fast. Pure and incremental: the
 * state is two numbers.
 * Average run lengths, by Markov chain, are in test/helpers/run-length.ts (the tests check
 * them against published tables and these step functions against them).
 */

/** CUSUM settings, in sigma units. */
export interface CusumParams {
  /** Reference value (allowance): half the shift to detect fastest, e.g. 0.5 for 1 sigma. */
  readonly k: number;
  /** Decision interval: a sum beyond it signals. */
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

/**
 * Adds one standardized value and returns the side that signals, without the restart: the sums
 * are then the ones that crossed h (what a gauge shows at the signal); the caller restarts them
 * with {@link cusumStart}.
 */
export function cusumAdd(state: CusumState, value: number, p: CusumParams): CusumSignal | undefined {
  const z = p.cap === undefined ? value : Math.max(-p.cap, Math.min(p.cap, value));
  state.upper = Math.max(0, state.upper + z - p.k);
  state.lower = Math.max(0, state.lower - z - p.k);
  return state.upper > p.h ? 'up' : state.lower > p.h ? 'down' : undefined;
}
