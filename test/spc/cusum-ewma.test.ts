/**
 * CUSUM and EWMA: the Markov-chain run lengths against published tables, the step functions
 * against the chains by simulation with a sound generator, and the conventions (strict limits,
 * restart after a signal, fast initial response).
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { cusumStart } from '../../src/spc/cusum.ts';
import { ewmaLimit, ewmaStart } from '../../src/spc/ewma.ts';
import {
  cusumArl,
  cusumStep,
  ewmaArl,
  ewmaStep,
  normalCdf,
  oneSidedCusumArl,
} from '../helpers/run-length.ts';

const within = (got: number, want: number, rel: number) => expect(Math.abs(got / want - 1)).toBeLessThan(rel);

describe('normal CDF', () => {
  it('matches tabulated values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-3)).toBeCloseTo(0.0013499, 6);
    expect(normalCdf(2.326348)).toBeCloseTo(0.99, 6);
  });
});

describe('CUSUM run lengths (Brook and Evans chain)', () => {
  it('match the published in-control ARLs of k = 0.5 (Montgomery, table 9.3)', () => {
    within(cusumArl({ k: 0.5, h: 4, fir: false }, 0), 168, 0.01);
    within(cusumArl({ k: 0.5, h: 5, fir: false }, 0), 465, 0.01);
    // And its out-of-control column at h = 5: 1 sigma 10.4, 2 sigma 4.01, 3 sigma 2.57.
    within(cusumArl({ k: 0.5, h: 5, fir: false }, 1), 10.4, 0.02);
    within(cusumArl({ k: 0.5, h: 5, fir: false }, 2), 4.01, 0.02);
    within(cusumArl({ k: 0.5, h: 5, fir: false }, 3), 2.57, 0.03);
  });

  it('give the design values the exporter documents', () => {
    // k = 0.75, h = 7: ARL0 about 89,000, ARL1 24.8 / 10.0 / 3.7 at 1 / 1.5 / 3 sigma.
    within(cusumArl({ k: 0.75, h: 7, fir: false }, 0), 89_000, 0.03);
    within(cusumArl({ k: 0.75, h: 7, fir: false }, 1), 24.8, 0.02);
    within(cusumArl({ k: 0.75, h: 7, fir: false }, 3), 3.7, 0.03);
  });

  it('step as the chain says: simulated in-control run length of k = 0.5, h = 4', () => {
    const r = splitmix64Fast(2024);
    const p = { k: 0.5, h: 4, fir: false };
    const runs = 3000;
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const s = cusumStart(p);
      let n = 0;
      do n++;
      while (cusumStep(s, r.normal(), p) === undefined);
      total += n;
    }
    // Run lengths are roughly geometric: sd about the mean; 5 standard errors.
    const arl = cusumArl(p, 0);
    expect(Math.abs(total / runs - arl)).toBeLessThan((5 * arl) / Math.sqrt(runs));
  });

  /** Mean simulated run length of `p` at `shift` sigma over `runs` runs. */
  const simulated = (p: Parameters<typeof cusumStep>[2], shift: number, runs: number, seed: number) => {
    const r = splitmix64Fast(seed);
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const s = cusumStart(p);
      let n = 0;
      do n++;
      while (cusumStep(s, shift + r.normal(), p) === undefined);
      total += n;
    }
    return total / runs;
  };

  it('caps a standardized value at ±cap: one wild point adds cap − k', () => {
    const p = { k: 0.5, h: 4, fir: false, cap: 3 };
    const s = cusumStart(p);
    expect(cusumStep(s, 50, p)).toBeUndefined();
    expect(s).toEqual({ upper: 2.5, lower: 0 });
    expect(cusumStep(s, -50, p)).toBeUndefined();
    expect(s).toEqual({ upper: 0, lower: 2.5 });
    // Within the cap, values count whole: 2.5 + 2.1 - 0.5 = 4.1 > 4.
    expect(cusumStep(s, -2.1, p)).toBe('down');
  });

  it('with a cap, the chain cuts the value at ±cap (a cap of 100 changes nothing)', () => {
    for (const shift of [0, 1, 2])
      within(
        cusumArl({ k: 0.625, h: 9, fir: false, cap: 100 }, shift),
        cusumArl({ k: 0.625, h: 9, fir: false }, shift),
        1e-9,
      );
    // An independent chain (scipy, 500 states; bench notes of 2026-11-26): k 0.625, h 9, cap 2.5
    // ARL0 383,273 and 25.3 points at 1 sigma; h 10, cap 3: 885,932, 26.7 and 8.4 at 2 sigma;
    // h 10, cap 2.5: 1,425,599, 28.14 and 9.10.
    within(cusumArl({ k: 0.625, h: 9, fir: false, cap: 2.5 }, 0), 383_273, 0.02);
    within(cusumArl({ k: 0.625, h: 9, fir: false, cap: 2.5 }, 1), 25.3, 0.01);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 3 }, 0), 885_932, 0.02);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 3 }, 1), 26.7, 0.01);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 3 }, 2), 8.4, 0.01);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 2.5 }, 0), 1_425_599, 0.02);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 2.5 }, 1), 28.14, 0.01);
    within(cusumArl({ k: 0.625, h: 10, fir: false, cap: 2.5 }, 2), 9.1, 0.01);
  });

  it('step as the capped chain says: simulated run lengths in control and under a 1 sigma shift', () => {
    const short = { k: 0.5, h: 4, fir: false, cap: 2 };
    const arl0 = cusumArl(short, 0);
    // Capping at 2 sigma lengthens the in-control run: the chain's 265 against 168 uncapped.
    expect(arl0).toBeGreaterThan(250);
    const runs = 3000;
    expect(Math.abs(simulated(short, 0, runs, 77) - arl0)).toBeLessThan((5 * arl0) / Math.sqrt(runs));
    const shipped = { k: 0.625, h: 10, fir: false, cap: 2.5 };
    const arl1 = cusumArl(shipped, 1);
    // Under a shift the run length's sd is well below its mean; 5 standard errors of a geometric.
    expect(Math.abs(simulated(shipped, 1, runs, 78) - arl1)).toBeLessThan((5 * arl1) / Math.sqrt(runs));
  });

  it('signals strictly beyond h, names the side, and restarts both sums (at h/2 with FIR)', () => {
    const p = { k: 0.5, h: 4, fir: false };
    const s = cusumStart(p);
    expect(cusumStep(s, 4.5, p)).toBeUndefined();
    expect(s.upper).toBe(4);
    expect(cusumStep(s, 0.5, p)).toBeUndefined();
    expect(s.upper).toBe(4);
    expect(cusumStep(s, 0.6, p)).toBe('up');
    expect(s).toEqual({ upper: 0, lower: 0 });
    const f = { ...p, fir: true };
    const t = cusumStart(f);
    expect(t).toEqual({ upper: 2, lower: 2 });
    // C- = 2 + 2.4 - 0.5 = 3.9, then 3.9 + 0.7 - 0.5 = 4.1 > 4.
    expect(cusumStep(t, -2.4, f)).toBeUndefined();
    expect(t.lower).toBeCloseTo(3.9, 12);
    expect(cusumStep(t, -0.7, f)).toBe('down');
    expect(t).toEqual({ upper: 2, lower: 2 });
  });

  it('halve the delay to a shift present at a (re)start with a fast initial response', () => {
    const plain = oneSidedCusumArl({ k: 0.5, h: 11 }, 1, { start: 0 });
    const fir = oneSidedCusumArl({ k: 0.5, h: 11 }, 1, { start: 5.5 });
    expect(fir / plain).toBeLessThan(0.6);
    // At almost no cost in chance signals.
    within(cusumArl({ k: 0.5, h: 11, fir: true }, 0), cusumArl({ k: 0.5, h: 11, fir: false }, 0), 0.01);
  });
});

describe('EWMA', () => {
  it('matches the published in-control ARL of lambda = 0.1, L = 2.814 (Lucas and Saccucci)', () => {
    within(ewmaArl({ lambda: 0.1, L: 2.814 }, 0), 500, 0.01);
    // Their table: 1 sigma 10.3, 2 sigma 4.36.
    within(ewmaArl({ lambda: 0.1, L: 2.814 }, 1), 10.3, 0.03);
    within(ewmaArl({ lambda: 0.1, L: 2.814 }, 2), 4.36, 0.03);
  });

  it('has the exact time-varying limits: L·λ after one point, the asymptotic width later', () => {
    const p = { lambda: 0.1, L: 3 };
    expect(ewmaLimit(p, 1)).toBeCloseTo(0.3, 12);
    expect(ewmaLimit(p, 1000)).toBeCloseTo(3 * Math.sqrt(0.1 / 1.9), 12);
    expect(ewmaLimit(p, 2)).toBeLessThan(ewmaLimit(p, 3));
  });

  it('steps like the chain: simulated run lengths, narrower early limits signalling a little sooner', () => {
    const r = splitmix64Fast(99);
    const p = { lambda: 0.1, L: 2.814 };
    const runs = 2000;
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const s = ewmaStart();
      let n = 0;
      do n++;
      while (ewmaStep(s, r.normal(), p) === undefined);
      total += n;
    }
    const arl = ewmaArl(p, 0);
    const mean = total / runs;
    // The exact limits are narrower for the first points only: a bit below the chain's ARL0.
    expect(mean).toBeLessThan(arl + (5 * arl) / Math.sqrt(runs));
    expect(mean).toBeGreaterThan(0.8 * arl - (5 * arl) / Math.sqrt(runs));
  });

  it('signals strictly beyond its limit and restarts at the centre', () => {
    const p = { lambda: 0.5, L: 2 };
    const s = ewmaStart();
    // After one point the limit is L·λ = 1: z = 0.5 x, so x = 2 lands on it, not beyond.
    expect(ewmaStep(s, 2, p)).toBeUndefined();
    expect(s).toEqual({ z: 1, t: 1 });
    const u = ewmaStart();
    expect(ewmaStep(u, -2.1, p)).toBe('down');
    expect(u).toEqual({ z: 0, t: 0 });
  });
});

describe('the documented defaults', () => {
  it('CUSUM k = 0.625, h = 10, cap 2.5 and EWMA 0.1 / 4.5 have the run lengths docs/measurements.md gives', () => {
    const cusum = { k: 0.625, h: 10, fir: false, cap: 2.5 };
    within(cusumArl(cusum, 0), 1_439_278, 0.01);
    within(cusumArl(cusum, 0.5), 497, 0.01);
    within(cusumArl(cusum, 1), 28.2, 0.01);
    within(cusumArl(cusum, 1.5), 13.3, 0.01);
    within(cusumArl(cusum, 2), 9.1, 0.01);
    within(cusumArl(cusum, 3), 6.5, 0.01);
    // The cap of 3 tried first (issue 30), for the table's comparison row.
    const cap3 = { ...cusum, cap: 3 };
    within(cusumArl(cap3, 0), 871_328, 0.01);
    within(cusumArl(cap3, 1), 26.7, 0.01);
    within(cusumArl(cap3, 2), 8.4, 0.01);
    // 0.3.0's default, k = 0.625 and h = 9 without a cap, for the table's comparison row.
    const before = { k: 0.625, h: 9, fir: false };
    within(cusumArl(before, 0), 207_750, 0.01);
    within(cusumArl(before, 1), 23.6, 0.01);
    within(cusumArl(before, 1.5), 11.0, 0.01);
    within(cusumArl(before, 3), 4.4, 0.02);
    within(ewmaArl({ lambda: 0.1, L: 4.5 }, 0), 217_899, 0.01);
    within(ewmaArl({ lambda: 0.1, L: 4.5 }, 1), 26.3, 0.01);
  });
});
