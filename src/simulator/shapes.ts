/**
 * Shapes of healthy measurement noise as standardised draws (mean 0, variance 1): normal, gamma
 * (skewed, bounded below: leakage current), lognormal (insulation resistance), Student's t (heavy
 * tails). The benches draw the same shapes, so plant and Monte Carlo agree on what "healthy" is.
 */

/** A noise shape with its parameter. */
export type Shape =
  | { readonly kind: 'normal' }
  | { readonly kind: 'gamma'; readonly skewness: number }
  | { readonly kind: 'lognormal'; readonly sigma: number }
  | { readonly kind: 't'; readonly df: number };

/** A source of uniform variates in [0, 1) and standard normal variates. */
export interface Variates {
  uniform(): number;
  normal(): number;
}

/** One draw of `shape`, standardised to mean 0 and variance 1. */
export function standardDraw(shape: Shape, v: Variates): number {
  switch (shape.kind) {
    case 'normal':
      return v.normal();
    case 'gamma': {
      // Gamma of shape a has skewness 2 / sqrt(a), mean a and variance a (scale 1).
      const a = 4 / (shape.skewness * shape.skewness);
      return (gammaDraw(a, v) - a) / Math.sqrt(a);
    }
    case 'lognormal': {
      const s2 = shape.sigma * shape.sigma;
      const mean = Math.exp(s2 / 2);
      const sd = Math.sqrt((Math.exp(s2) - 1) * Math.exp(s2));
      return (Math.exp(shape.sigma * v.normal()) - mean) / sd;
    }
    case 't': {
      const df = shape.df;
      if (!(df > 2)) throw new Error('t needs more than 2 degrees of freedom for a finite variance');
      const chi2 = 2 * gammaDraw(df / 2, v);
      return (v.normal() / Math.sqrt(chi2 / df)) * Math.sqrt((df - 2) / df);
    }
  }
}

/** The skewness of a shape's draws (before any autocorrelation), for documentation and tests. */
export function shapeSkewness(shape: Shape): number {
  switch (shape.kind) {
    case 'normal':
    case 't':
      return 0;
    case 'gamma':
      return shape.skewness;
    case 'lognormal': {
      const e = Math.exp(shape.sigma * shape.sigma);
      return (e + 2) * Math.sqrt(e - 1);
    }
  }
}

/**
 * Gamma(a, 1) by Marsaglia and Tsang (2000), "A simple method for generating gamma variables";
 * for a < 1 the boost Gamma(a) = Gamma(a + 1) · U^(1/a).
 */
function gammaDraw(a: number, v: Variates): number {
  if (a < 1) return gammaDraw(a + 1, v) * (1 - v.uniform()) ** (1 / a);
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = v.normal();
    const t = 1 + c * x;
    if (t <= 0) continue;
    const t3 = t * t * t;
    const u = 1 - v.uniform();
    if (Math.log(u) < 0.5 * x * x + d - d * t3 + d * Math.log(t3)) return d * t3;
  }
}

/**
 * A stationary AR(1) x[n] = phi · x[n-1] + sqrt(1 - phi²) · e[n] of variance 1 (a fixture that
 * warms and cools carries part of each reading into the next).
 */
export class Ar1 {
  readonly #phi: number;
  readonly #gain: number;
  #last: number | undefined;

  constructor(phi: number) {
    if (!(phi > -1 && phi < 1)) throw new Error(`AR(1) phi must be in (-1, 1), got ${phi}`);
    this.#phi = phi;
    this.#gain = Math.sqrt(1 - phi * phi);
  }

  /** The next value, given the next standardised innovation. */
  next(innovation: number): number {
    this.#last = this.#last === undefined ? innovation : this.#phi * this.#last + this.#gain * innovation;
    return this.#last;
  }
}

/**
 * The same AR(1) value without state: the sum of phi^k · e[n-k] (`innovation(k)`), truncated
 * where phi^k falls below 1e-9, scaled to variance 1.
 */
export function ar1At(phi: number, innovation: (lag: number) => number): number {
  if (phi === 0) return innovation(0);
  const terms = Math.min(64, Math.ceil(Math.log(1e-9) / Math.log(Math.abs(phi))));
  let sum = 0;
  let weight = 1;
  for (let k = 0; k < terms; k++) {
    sum += weight * innovation(k);
    weight *= phi;
  }
  return sum * Math.sqrt(1 - phi * phi);
}
