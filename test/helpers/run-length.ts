/**
 * Run lengths of the CUSUM and the EWMA, for tests: the Markov chains that give their average
 * run lengths (checked against published tables), and the step-and-restart loop that a
 * simulation runs. An independent computation to check the exporter's detectors and documented
 * defaults against; the exporter itself runs none of it.
 */
import {
  type CusumParams,
  type CusumSignal,
  type CusumState,
  cusumAdd,
  cusumStart,
} from '../../src/spc/cusum.ts';
import { type EwmaParams, type EwmaState, ewmaAdd, ewmaStart } from '../../src/spc/ewma.ts';

/**
 * Standard normal CDF Φ(x), by the complementary error function of W. J. Cody's rational
 * Chebyshev approximation as given in Numerical Recipes (erfc with fractional error below
 * 1.2e-7 everywhere): enough for average run lengths to a fraction of a percent.
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * Expected steps to absorption of a Markov chain from each transient state: solves
 * (I - Q) arl = 1 by Gaussian elimination with partial pivoting and back substitution. `q[i][j]`
 * is the probability of going from transient state i to transient state j.
 */
export function expectedSteps(q: readonly ArrayLike<number>[]): number[] {
  const n = q.length;
  // [I - Q | 1] in one row-major typed array: the elimination is n³/3 multiply-adds on it.
  const m = n + 1;
  const a = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const row = q[i]!;
    for (let j = 0; j < n; j++) a[i * m + j] = (i === j ? 1 : 0) - row[j]!;
    a[i * m + n] = 1;
  }
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++)
      if (Math.abs(a[r * m + col]!) > Math.abs(a[pivot * m + col]!)) pivot = r;
    if (pivot !== col)
      for (let c = col; c < m; c++) {
        const t = a[col * m + c]!;
        a[col * m + c] = a[pivot * m + c]!;
        a[pivot * m + c] = t;
      }
    const p = col * m;
    for (let r = col + 1; r < n; r++) {
      const row = r * m;
      const f = a[row + col]! / a[p + col]!;
      if (f === 0) continue;
      for (let c = col; c < m; c++) a[row + c] = a[row + c]! - f * a[p + c]!;
    }
  }
  const x = new Array<number>(n);
  for (let i = n - 1; i >= 0; i--) {
    const row = i * m;
    let sum = a[row + n]!;
    for (let j = i + 1; j < n; j++) sum -= a[row + j]! * x[j]!;
    x[i] = sum / a[row + i]!;
  }
  return x;
}

/**
 * Adds one standardized value; returns the side that signals, and then restarts the sums, as
 * the detectors do (src/spc/detector-state.ts).
 */
export function cusumStep(state: CusumState, z: number, p: CusumParams): CusumSignal | undefined {
  const signal = cusumAdd(state, z, p);
  if (signal !== undefined) Object.assign(state, cusumStart(p));
  return signal;
}

/**
 * Average run length of the one-sided upper CUSUM to a mean shift of `shift` sigma, by the
 * Markov chain of Brook and Evans (1972) with `states` states, from a start of `start` (sigma).
 * With a cap, the standardized value is capped at ±cap: the chain's continuous part is cut
 * there, and the two tails become point masses at ±cap. `cdf` is the in-control distribution
 * of the standardized value (default standard normal).
 */
export function oneSidedCusumArl(
  p: Pick<CusumParams, 'k' | 'h' | 'cap'>,
  shift: number,
  opts: { readonly start?: number; readonly states?: number; readonly cdf?: (x: number) => number } = {},
): number {
  const { start = 0, states = 150, cdf: baseCdf = normalCdf } = opts;
  const cap = p.cap ?? Number.POSITIVE_INFINITY;
  // State 0 is a sum of 0; state i covers ((i - 0.5) w, (i + 0.5) w], up to h.
  const w = (2 * p.h) / (2 * states - 1);
  const stateOf = (sum: number) => (sum < 0.5 * w ? 0 : Math.round(sum / w));
  // P(z <= x) for the value z ~ N(shift, 1) capped: the continuous part only, within ±cap.
  const cdf = (x: number) => baseCdf(Math.min(Math.max(x, -cap), cap) - shift);
  // Next sum = i w + z - k lands in state j >= 1 when z lies in ((j - i - 0.5) w + k, (j - i + 0.5) w + k]:
  // the bounds depend on j - i alone, so the CDF is evaluated once per difference, not per cell.
  const upper = new Float64Array(2 * states);
  for (let d = -states; d < states; d++) upper[d + states] = cdf((d + 0.5) * w + p.k);
  const q: number[][] = [];
  for (let i = 0; i < states; i++) {
    const from = i * w;
    // State 0 takes every z up to its upper bound.
    const row: number[] = [Math.max(0, upper[states - i]! - cdf(Number.NEGATIVE_INFINITY))];
    for (let j = 1; j < states; j++)
      row.push(Math.max(0, upper[j - i + states]! - upper[j - i - 1 + states]!));
    if (cap !== Number.POSITIVE_INFINITY) {
      const top = stateOf(from + cap - p.k);
      if (top < states) row[top] = (row[top] ?? 0) + (1 - baseCdf(cap - shift));
      row[stateOf(from - cap - p.k)]! += baseCdf(-cap - shift);
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
export function cusumArl(p: CusumParams, shift: number, cdf: (x: number) => number = normalCdf): number {
  const start = p.fir ? p.h / 2 : 0;
  const up = oneSidedCusumArl(p, shift, { start, cdf });
  const down = oneSidedCusumArl(p, -shift, { start, cdf });
  return 1 / (1 / up + 1 / down);
}

/**
 * The CDF of Student's t with 5 degrees of freedom scaled to variance 1 (t √(3/5)), in closed
 * form (Abramowitz and Stegun 26.7.4, odd degrees of freedom): with θ = atan(t / √5),
 * P(T ≤ t) = 1/2 + (θ + sin θ cos θ (1 + (2/3) cos² θ)) / π. The lower sum's chain uses it for
 * the upper tail by symmetry.
 */
export function t5UnitCdf(x: number): number {
  const theta = Math.atan(x / Math.sqrt(3 / 5) / Math.sqrt(5));
  const c = Math.cos(theta);
  return 0.5 + (theta + Math.sin(theta) * c * (1 + (2 / 3) * c * c)) / Math.PI;
}

/** Adds one standardized value; returns the side that signals, and then restarts, as the detectors do. */
export function ewmaStep(state: EwmaState, x: number, p: EwmaParams): 'up' | 'down' | undefined {
  const signal = ewmaAdd(state, x, p);
  if (signal !== undefined) Object.assign(state, ewmaStart());
  return signal;
}

/**
 * Average run length with the asymptotic limits to a shift of `shift` sigma, by the Markov
 * chain of Lucas and Saccucci (1990) with `states` states (odd), from the centre.
 */
export function ewmaArl(p: EwmaParams, shift: number, states = 201): number {
  const ucl = p.L * Math.sqrt(p.lambda / (2 - p.lambda));
  const w = (2 * ucl) / states;
  const centre = (i: number) => -ucl + (i + 0.5) * w;
  const q: number[][] = [];
  for (let i = 0; i < states; i++) {
    const row: number[] = [];
    for (let j = 0; j < states; j++) {
      // Next Z = (1 - λ) c_i + λ x lands in state j when x lies in this interval.
      const lo = (centre(j) - w / 2 - (1 - p.lambda) * centre(i)) / p.lambda;
      const hi = (centre(j) + w / 2 - (1 - p.lambda) * centre(i)) / p.lambda;
      row.push(normalCdf(hi - shift) - normalCdf(lo - shift));
    }
    q.push(row);
  }
  return expectedSteps(q)[(states - 1) / 2] ?? Number.NaN;
}
