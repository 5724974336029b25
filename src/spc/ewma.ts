/**
 * EWMA chart (Roberts 1959; Lucas and Saccucci 1990) on standardized values:
 * Z_t = λ x_t + (1 − λ) Z_{t−1}, Z_0 = 0, with the exact time-varying limits
 * ± L sqrt(λ / (2 − λ) · (1 − (1 − λ)^(2t))). After a signal it restarts at the centre, so a
 * persisting shift signals again only on new evidence. Run lengths: test/helpers/run-length.ts.
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

/** Adds one value; returns the side that signals, without the restart (the caller restarts). */
export function ewmaAdd(state: EwmaState, x: number, p: EwmaParams): 'up' | 'down' | undefined {
  state.z = p.lambda * x + (1 - p.lambda) * state.z;
  state.t++;
  const limit = ewmaLimit(p, state.t);
  return state.z > limit ? 'up' : state.z < -limit ? 'down' : undefined;
}
