/**
 * EWMA chart (Roberts 1959; Lucas and Saccucci 1990) on standardized values:
 *   Z_t = λ x_t + (1 − λ) Z_{t−1},  Z_0 = 0 (the centre),
 * with the exact time-varying limits ± L sqrt(λ / (2 − λ) · (1 − (1 − λ)^(2t))), which are narrow
 * for the first points and widen to the asymptotic ± L sqrt(λ / (2 − λ)). A point strictly beyond
 * a limit signals, after which the statistic restarts at the centre with t = 0: without the
 * restart a persisting shift keeps Z beyond the limit and every point would signal; with it, a
 * new signal needs new evidence. Pure and incremental: the state is the statistic and its
 * point count.
 * Average run lengths, by Markov chain, are in test/helpers/run-length.ts (the tests check
 * them against published tables and these step functions against them).
 */

/** EWMA settings. */
export interface EwmaParams {
  /** Weight of the newest point, 0 < λ ≤ 1; small λ remembers long and sees small shifts. */
  readonly lambda: number;
  /** Width of the limits in multiples of the statistic's standard deviation. */
  readonly L: number;
}

/** The statistic (sigma units from the centre) and the points since the (re)start. */
export interface EwmaState {
  z: number;
  t: number;
}

/** The state at the start (and after a signal). */
export function ewmaStart(): EwmaState {
  return { z: 0, t: 0 };
}

/** The limit half-width (sigma units) after `t` points. */
export function ewmaLimit(p: EwmaParams, t: number): number {
  return p.L * Math.sqrt((p.lambda / (2 - p.lambda)) * (1 - (1 - p.lambda) ** (2 * t)));
}

/**
 * Adds one standardized value and returns the side that signals, without the restart: the
 * statistic and its point count are then the ones that crossed the limit; the caller restarts
 * with {@link ewmaStart}.
 */
export function ewmaAdd(state: EwmaState, x: number, p: EwmaParams): 'up' | 'down' | undefined {
  state.z = p.lambda * x + (1 - p.lambda) * state.z;
  state.t++;
  const limit = ewmaLimit(p, state.t);
  return state.z > limit ? 'up' : state.z < -limit ? 'down' : undefined;
}
