/**
 * The information references of bench:spc's delay curves (bench/spc/information.ts) against
 * closed forms and an independent chain: the normal's δ²/2, the exponential's KL and its optimal
 * CUSUM (a run of values above the shift), small-shift Fisher information of each shape, a Monte
 * Carlo of the lognormal's KL, and the normal CUSUM's Brook–Evans chain of test/helpers.
 */
import { describe, expect, it } from 'vitest';
import {
  innovationShifts,
  lordenPoints,
  optimalCusumPoints,
  shiftInformation,
} from '../../../bench/spc/information.ts';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';
import type { Shape } from '../../../src/simulator/shapes.ts';
import { oneSidedCusumArl } from '../../helpers/run-length.ts';

const NORMAL: Shape = { kind: 'normal' };
/** Gamma of skewness 2 is the exponential (shape 1): standardised, e^(−(x + 1)) on x ≥ −1. */
const EXPONENTIAL: Shape = { kind: 'gamma', skewness: 2 };

describe('the information of a shifted point', () => {
  it('is δ²/2 for the normal', () => {
    for (const d of [0.5, 1, 2, 3]) expect(shiftInformation(NORMAL, d)).toBeCloseTo((d * d) / 2, 6);
  });

  it('is the shift itself for the exponential, and infinite downwards', () => {
    // E[ln f(X) − ln f(X + c)] for X exponential and f(x) = e^(−x): c exactly.
    for (const d of [0.5, 1.5, 3]) expect(shiftInformation(EXPONENTIAL, d)).toBeCloseTo(d, 2);
    expect(shiftInformation(EXPONENTIAL, -0.5)).toBe(Number.POSITIVE_INFINITY);
    expect(shiftInformation({ kind: 'lognormal', sigma: 0.3 }, -1)).toBe(Number.POSITIVE_INFINITY);
  });

  it("is the Fisher information for location for small shifts: δ²/2 times each shape's", () => {
    const d = 0.004;
    const s = 0.3;
    const cases: [Shape, number][] = [
      // Gamma of shape a, in units of its variance a: a / (a − 2); skewness 1 is a = 4.
      [{ kind: 'gamma', skewness: 1 }, 2],
      // Student's t of ν degrees of freedom scaled to variance 1: ν (ν + 1) / ((ν + 3)(ν − 2)).
      [{ kind: 't', df: 5 }, 1.25],
      // Lognormal e^(sN): e^(2s²)(1 + 1/s²) per unit of y, times its variance (e^(s²) − 1) e^(s²).
      [
        { kind: 'lognormal', sigma: s },
        Math.exp(2 * s * s) * (1 + 1 / (s * s)) * (Math.exp(s * s) - 1) * Math.exp(s * s),
      ],
    ];
    for (const [shape, fisher] of cases) {
      expect(shiftInformation(shape, d) / ((d * d) / 2)).toBeCloseTo(fisher, 1);
      expect(Math.abs(shiftInformation(shape, d) / ((d * d) / 2) / fisher - 1)).toBeLessThan(0.02);
    }
  });

  it('agrees with a Monte Carlo of the lognormal at 3 sigma, below the normal', () => {
    // KL(f(· − c) ‖ f) = E[ln f(Y) − ln f(Y + c)] for Y of the standardised lognormal, from draws.
    const s = 0.5;
    const w = Math.exp(s * s);
    const m = Math.sqrt(w);
    const sd = Math.sqrt((w - 1) * w);
    const logf = (x: number) => {
      const y = m + sd * x;
      return -Math.log(y) - Math.log(y) ** 2 / (2 * s * s);
    };
    const rng = splitmix64Fast(11);
    const n = 200_000;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const x = (Math.exp(s * rng.normal()) - m) / sd;
      sum += logf(x) - logf(x + 3);
    }
    const kl = shiftInformation({ kind: 'lognormal', sigma: s }, 3);
    expect(Math.abs(kl / (sum / n) - 1)).toBeLessThan(0.02);
    expect(kl).toBeLessThan(4.5);
  });
});

describe("Lorden's first-order term", () => {
  it('is ln(ARL0) / (δ²/2) on independent normal data', () => {
    expect(lordenPoints(NORMAL, 2, 0, 1e6)).toBeCloseTo(Math.log(1e6) / 2, 6);
  });

  it('counts the first shifted innovation whole and the later ones by (1 − φ) on AR(1) data', () => {
    const phi = 0.3;
    const first = 9 / (2 * (1 - phi * phi));
    const later = (9 / 2) * ((1 - phi) / (1 + phi));
    expect(lordenPoints(NORMAL, 3, phi, 1e6)).toBeCloseTo(1 + (Math.log(1e6) - first) / later, 6);
    const { first: c1, later: c } = innovationShifts(3, phi);
    expect((c1 * c1) / 2).toBeCloseTo(first, 10);
    expect((c * c) / 2).toBeCloseTo(later, 10);
  });
});

describe('the optimal CUSUM', () => {
  it("is the normal CUSUM with k = δ/2 at that run length, by test/helpers' chain", () => {
    const arl0 = 780_000;
    for (const d of [1, 3]) {
      const k = d / 2;
      // The decision interval in sigmas that gives the run length, by the helper's chain.
      // (Bounded by twice the Wald bound ln(ARL0) / d: the chain is not solvable far beyond it.)
      // To 1e-4 sigma: the shifted run length moves by about that over d − k = d/2, some 1e-5 of
      // it, where the check allows 1 %.
      let lo = 1;
      let hi = (2 * Math.log(arl0)) / d;
      while (hi - lo > 1e-4) {
        const h = (lo + hi) / 2;
        if (oneSidedCusumArl({ k, h }, 0, { states: 200 }) < arl0) lo = h;
        else hi = h;
      }
      const expected = oneSidedCusumArl({ k, h: lo }, d, { states: 200 });
      expect(Math.abs(optimalCusumPoints(NORMAL, d, 0, arl0) / expected - 1)).toBeLessThan(0.01);
    }
  });

  it('waits for a run of values above the shift on exponential data', () => {
    // Upward shift c of Exp(1): the log-likelihood ratio is c for a value at or above c and
    // −∞ below (impossible after the shift), so the CUSUM signals after n values in a row at or
    // above c, found in exactly n points; in control a value is there with p = e^(−c) and a run
    // of n takes (1 − pⁿ) / ((1 − p) pⁿ) values. c = 2: n = 6 takes 188,000, n = 7 1.39 million.
    const p = Math.exp(-2);
    const run = (n: number) => (1 - p ** n) / ((1 - p) * p ** n);
    expect(run(6)).toBeLessThan(500_000);
    expect(run(7)).toBeGreaterThan(500_000);
    expect(optimalCusumPoints(EXPONENTIAL, 2, 0, 500_000)).toBeCloseTo(7, 1);
  });

  it('takes longer at 3 sigma than the Gaussian on skewed shapes, and less at 1 sigma', () => {
    const arl0 = 780_000;
    const gamma: Shape = { kind: 'gamma', skewness: 1 };
    expect(optimalCusumPoints(gamma, 3, 0, arl0)).toBeGreaterThan(optimalCusumPoints(NORMAL, 3, 0, arl0));
    expect(optimalCusumPoints(gamma, 1, 0, arl0)).toBeLessThan(optimalCusumPoints(NORMAL, 1, 0, arl0));
  });
});
