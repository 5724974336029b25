/**
 * What the points of a chart can tell about a sustained mean shift, for the delay curves of
 * `npm run bench:spc`: the Kullback–Leibler information of a shifted point for the noise shapes
 * of src/simulator/shapes.ts (not only the normal's δ²/2), Lorden's first-order term with it, and
 * the delay of the CUSUM that is optimal for that shift and shape at a given in-control run
 * length (Moustakides 1986: no test with that run length has a shorter worst-case delay).
 *
 * A chart of an AR(1) process x_t = φ x_{t−1} + e_t (innovations e of variance 1 − φ², of the
 * shape's standardised form scaled) whose mean moves by δ marginal sigmas sees, given the past,
 * an innovation shifted by δ at the first shifted point and by δ (1 − φ) at every later one: in
 * innovation sigmas c₁ = δ / sqrt(1 − φ²) and c = δ (1 − φ) / sqrt(1 − φ²). The information is
 * the innovations'.
 *
 * Everything is computed on one grid of the standardised shape's density (midpoint rule, masses
 * normalised over the grid, so no normalising constant is needed), which test/bench/spc/
 * information.test.ts checks against closed forms.
 */
import type { Shape } from '../../src/simulator/shapes.ts';
import { expectedSteps } from '../../test/helpers/run-length.ts';

/** Cells of the density's grid. */
const CELLS = 6000;

/** The standardised shape's log density up to a constant, and the span that holds its mass. */
interface Density {
  readonly logDensity: (x: number) => number;
  readonly lo: number;
  readonly hi: number;
}

function densityOf(shape: Shape): Density {
  switch (shape.kind) {
    case 'normal':
      return { logDensity: (x) => -0.5 * x * x, lo: -12, hi: 12 };
    case 'gamma': {
      // x = (g − a) / sqrt(a) for g ~ Gamma(a, 1).
      const a = 4 / (shape.skewness * shape.skewness);
      const r = Math.sqrt(a);
      return {
        logDensity: (x) => {
          const g = a + r * x;
          return g > 0 ? (a - 1) * Math.log(g) - g : Number.NEGATIVE_INFINITY;
        },
        lo: -r,
        hi: 12 + 60 / r,
      };
    }
    case 'lognormal': {
      // x = (y − m) / sd for y = e^(s N).
      const s = shape.sigma;
      const w = Math.exp(s * s);
      const m = Math.sqrt(w);
      const sd = Math.sqrt((w - 1) * w);
      return {
        logDensity: (x) => {
          const y = m + sd * x;
          if (!(y > 0)) return Number.NEGATIVE_INFINITY;
          const l = Math.log(y);
          return -l - (l * l) / (2 * s * s);
        },
        lo: -m / sd,
        hi: (Math.exp(12 * s) - m) / sd,
      };
    }
    case 't': {
      // x = t sqrt((ν − 2) / ν) for t ~ Student's t with ν degrees of freedom.
      const nu = shape.df;
      const scale = Math.sqrt((nu - 2) / nu);
      return {
        logDensity: (x) => (-(nu + 1) / 2) * Math.log(1 + (x / scale) ** 2 / nu),
        lo: -200,
        hi: 200,
      };
    }
  }
}

/** The grid: cell centres, and the masses of the density and of it shifted by each of `shifts`. */
interface Grid {
  readonly x: Float64Array;
  /** Log density at each centre, unshifted. */
  readonly log0: Float64Array;
  /** Masses (summing to 1) of the unshifted density. */
  readonly p0: Float64Array;
}

function gridOf(shape: Shape, reach: number): Grid {
  const d = densityOf(shape);
  const lo = d.lo + Math.min(0, reach);
  const hi = d.hi + Math.max(0, reach);
  const w = (hi - lo) / CELLS;
  const x = new Float64Array(CELLS);
  const log0 = new Float64Array(CELLS);
  for (let i = 0; i < CELLS; i++) {
    x[i] = lo + (i + 0.5) * w;
    log0[i] = d.logDensity(x[i]!);
  }
  return { x, log0, p0: masses(log0) };
}

/** Normalised masses from log densities at equally spaced centres. */
function masses(logs: Float64Array): Float64Array {
  let top = Number.NEGATIVE_INFINITY;
  for (const l of logs) if (l > top) top = l;
  const out = new Float64Array(logs.length);
  let sum = 0;
  for (let i = 0; i < logs.length; i++) {
    const v = Math.exp(logs[i]! - top);
    out[i] = v;
    sum += v;
  }
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / sum;
  return out;
}

/** Log densities of the shape shifted by `c` at the grid's centres. */
function shiftedLogs(shape: Shape, grid: Grid, c: number): Float64Array {
  const d = densityOf(shape);
  return grid.x.map((x) => d.logDensity(x - c));
}

/**
 * KL(f(· − c) ‖ f): the information per point about a shift of `c` sigmas of the standardised
 * `shape` (δ²/2 for the normal). Infinite for a downward shift of a shape bounded below: a value
 * below the healthy bound is then proof.
 */
export function shiftInformation(shape: Shape, c: number): number {
  if (c === 0) return 0;
  const grid = gridOf(shape, c);
  const logs = shiftedLogs(shape, grid, c);
  const q = masses(logs);
  let kl = 0;
  for (let i = 0; i < CELLS; i++) {
    const qi = q[i]!;
    if (qi === 0) continue;
    if (grid.p0[i] === 0) return Number.POSITIVE_INFINITY;
    kl += qi * Math.log(qi / grid.p0[i]!);
  }
  return kl;
}

/** The innovation shifts, in innovation sigmas, of a shift of `size` marginal sigmas at lag-1 `phi`. */
export function innovationShifts(size: number, phi: number): { first: number; later: number } {
  const g = Math.sqrt(1 - phi * phi);
  return { first: size / g, later: (size * (1 - phi)) / g };
}

/**
 * Lorden's first-order term in points for a shift of `size` marginal sigmas of an AR(1) chart
 * of innovations of `shape` and lag-1 `phi`: the n at which the shifted points' summed
 * information reaches ln(ARL0) (the first point's, then each later one's). Asymptotic as ARL0
 * grows, not a floor at finite ARL0.
 */
export function lordenPoints(shape: Shape, size: number, phi: number, arl0: number): number {
  const target = Math.log(arl0);
  const { first, later } = innovationShifts(size, phi);
  const a = shiftInformation(shape, first);
  const b = shiftInformation(shape, later);
  return target <= a ? target / a : 1 + (target - a) / b;
}

/** States of the Brook–Evans chain of the optimal CUSUM's statistic. */
const STATES = 160;

/**
 * Transient states' transition matrix of a CUSUM W' = max(0, W + ℓ) with threshold `b` over
 * STATES states (state j: W about j b / (STATES − 0.5)), for increments ℓ with masses `mass`.
 */
function transitions(llr: Float64Array, mass: Float64Array, b: number): Float64Array[] {
  const w = b / (STATES - 0.5);
  const q = Array.from({ length: STATES }, () => new Float64Array(STATES));
  for (let i = 0; i < STATES; i++) {
    const row = q[i]!;
    const from = i * w;
    for (let m = 0; m < llr.length; m++) {
      const p = mass[m]!;
      if (p === 0) continue;
      const next = Math.max(0, from + llr[m]!);
      if (next > b) continue;
      row[Math.min(STATES - 1, Math.round(next / w))]! += p;
    }
  }
  return q;
}

/**
 * The delay in points (the first shifted point counted) of the one-sided CUSUM of the exact
 * log-likelihood ratio of a `later`-sigma innovation shift of `shape`, its threshold set so that
 * its in-control run length from 0 is `arl0`, to a shift of `size` marginal sigmas at `phi`
 * (the first point's innovation shifted by the larger first shift), from a statistic at 0 (its
 * worst case). The best worst-case delay of any test with that run length for a shift of that
 * size and shape (Moustakides 1986), up to the first point's larger shift; a two-sided detector
 * that spends the same run length on both sides, or that must stand wild values, takes longer.
 * Brook–Evans chain of {@link STATES} states on the density's grid.
 */
export function optimalCusumPoints(shape: Shape, size: number, phi: number, arl0: number): number {
  const { first, later } = innovationShifts(size, phi);
  const grid = gridOf(shape, first);
  const shifted = shiftedLogs(shape, grid, later);
  const llr = grid.x.map((_, i) => {
    const v = shifted[i]! - grid.log0[i]!;
    return Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v;
  });
  const postLater = masses(shifted);
  const postFirst = masses(shiftedLogs(shape, grid, first));
  const arlFrom0 = (b: number, mass: Float64Array) => expectedSteps(transitions(llr, mass, b))[0]!;
  // The in-control run length rises with b (about e^b): bisection on b.
  let lo = 0.1;
  let hi = 1;
  while (arlFrom0(hi, grid.p0) < arl0) hi *= 2;
  for (let i = 0; i < 40 && hi - lo > 1e-4 * hi; i++) {
    const b = (lo + hi) / 2;
    if (arlFrom0(b, grid.p0) < arl0) lo = b;
    else hi = b;
  }
  const b = (lo + hi) / 2;
  const after = expectedSteps(transitions(llr, postLater, b));
  // The first point moves the statistic from 0 with its own (larger) shift's masses.
  const firstRow = transitions(llr, postFirst, b)[0]!;
  let delay = 1;
  for (let j = 0; j < STATES; j++) delay += firstRow[j]! * after[j]!;
  return delay;
}
