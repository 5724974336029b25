import { describe, expect, it } from 'vitest';
import { bernoulliArl, bernoulliKl, detectionBoundUnits } from '../../bench/pager/information-limit.ts';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import {
  BernoulliBaseline,
  BernoulliCusum,
  bernoulliWeights,
  designBernoulliCusum,
  onLogitGrid,
  PASS_WEIGHT,
  RESOLUTION,
  shiftByOddsRatio,
} from '../../src/spc/bernoulli.ts';

describe('Bernoulli CUSUM weights', () => {
  it('are the two log-likelihood ratios in a common scale (final yield 0.95 -> 0.80)', () => {
    // By hand: ln(0.20/0.05) = 1.386294, ln(0.80/0.95) = -0.171850; ratio 8.0669, x 16 = 129.07.
    const w = bernoulliWeights({ p0: 0.05, p1: 0.2 });
    expect(w.passWeight).toBe(PASS_WEIGHT);
    expect(w.failWeight).toBe(129);
    expect(w.llrPerStep * PASS_WEIGHT).toBeCloseTo(0.17185, 5);
    expect(w.failWeight * w.llrPerStep).toBeCloseTo(1.3863, 2);
  });

  it('gives the retry ratio 0.10 -> 0.20 a weight of 94 (ln 2 / ln(9/8) = 5.885)', () => {
    expect(bernoulliWeights({ p0: 0.1, p1: 0.2 }).failWeight).toBe(94);
  });

  it('refuses a shift that is not a rise', () => {
    expect(() => bernoulliWeights({ p0: 0.2, p1: 0.1 })).toThrow(RangeError);
  });

  it('KL and the information bound of the issue (132 and 414 units at twice the bound)', () => {
    expect(bernoulliKl(0.2, 0.05)).toBeCloseTo(0.13979, 4);
    expect(2 * detectionBoundUnits({ p0: 0.05, p1: 0.2, a: 1e4 })).toBeCloseTo(131.8, 1);
    expect(2 * detectionBoundUnits({ p0: 0.1, p1: 0.2, a: 1e4 })).toBeCloseTo(414.9, 1);
  });
});

describe('bernoulliArl', () => {
  it('is geometric, 1/p, when one failure signals', () => {
    expect(bernoulliArl({ failWeight: 2, passWeight: 1, h: 2 }, 0.1)).toBeCloseTo(10, 10);
  });

  it('solves a three-state chain as by hand', () => {
    // States 0, 1, 2; fail +2, pass -1, H = 3:
    //   L0 = 1 + p L2 + q L0,  L1 = 1 + q L0,  L2 = 1 + q L1
    // => L0 (1 - q - p q^2) = 1 + p + p q  (solved by substitution).
    const p = 0.3;
    const q = 1 - p;
    const l0 = (1 + p + p * q) / (1 - q - p * q * q);
    expect(bernoulliArl({ failWeight: 2, passWeight: 1, h: 3 }, p)).toBeCloseTo(l0, 10);
  });

  it('matches a seeded simulation of the same chart', () => {
    const design = { failWeight: 5, passWeight: 1, h: 12, llrPerStep: 1 };
    const p = 0.15;
    const rng = splitmix64Fast(42);
    const runs = 20_000;
    let total = 0;
    for (let r = 0; r < runs; r++) {
      const chart = new BernoulliCusum(design);
      let n = 1;
      while (!chart.add(rng.uniform() < p)) n++;
      total += n;
    }
    const exact = bernoulliArl(design, p);
    // The run length's standard deviation is about its mean: 4 standard errors of the mean.
    expect(Math.abs(total / runs - exact)).toBeLessThan((4 * exact) / Math.sqrt(runs));
  });
});

/** The same chain solved densely (Gaussian elimination with partial pivoting): the reference. */
function denseArl(design: { failWeight: number; passWeight: number; h: number }, p: number): number {
  const { failWeight: up, passWeight: down, h: n } = design;
  const a = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  for (let i = 0; i < n; i++) {
    const row = a[i]!;
    row[i]! += 1;
    if (i + up < n) row[i + up]! -= p;
    row[Math.max(0, i - down)]! -= 1 - p;
    row[n] = 1;
  }
  for (let k = 0; k < n; k++) {
    let best = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i]![k]!) > Math.abs(a[best]![k]!)) best = i;
    [a[k], a[best]] = [a[best]!, a[k]!];
    for (let i = k + 1; i < n; i++) {
      const f = a[i]![k]! / a[k]![k]!;
      for (let j = k; j <= n; j++) a[i]![j]! -= f * a[k]![j]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = a[i]![n]!;
    for (let j = i + 1; j < n; j++) s -= a[i]![j]! * x[j]!;
    x[i] = s / a[i]![i]!;
  }
  return x[0]!;
}

describe('bernoulliArl against the dense solution', () => {
  it.each([
    { failWeight: 5, passWeight: 1, h: 12, p: 0.15 },
    { failWeight: 80, passWeight: 16, h: 300, p: 0.1 },
    { failWeight: 1, passWeight: 16, h: 110, p: 0.9 },
    { failWeight: 493, passWeight: 16, h: 400, p: 0.001 },
    { failWeight: 129, passWeight: 16, h: 350, p: 0.2 },
  ])('fail $failWeight, pass $passWeight, H $h, p $p', ({ p, ...design }) => {
    const dense = denseArl(design, p);
    expect(Math.abs(bernoulliArl(design, p) - dense) / dense).toBeLessThan(1e-9);
  });
});

describe('designBernoulliCusum', () => {
  it('keeps the decision intervals of the shipped defaults (ARL0 2·10^6)', () => {
    // First-pass yield 0.90 -> 0.75, final yield 0.95 -> 0.80, retry ratio 0.10 -> 0.20, and the
    // extreme weight of the 0.1 % floor: the values the first design (a chain per H) gave.
    expect(designBernoulliCusum({ p0: 0.1, p1: 0.25 }, 2e6)).toMatchObject({ failWeight: 80, h: 993 });
    expect(designBernoulliCusum({ p0: 0.05, p1: 0.2 }, 2e6)).toMatchObject({ failWeight: 129, h: 1076 });
    expect(designBernoulliCusum({ p0: 0.1, p1: 0.2 }, 2e6)).toMatchObject({ failWeight: 94, h: 1475 });
    // A failure weighs 30.8 passes here: the pass weight shrinks to 4 (128 / 30.8), not 16.
    expect(designBernoulliCusum({ p0: 0.001, p1: 0.151 }, 2e6)).toMatchObject({
      failWeight: 123,
      passWeight: 4,
      h: 247,
    });
  });

  it('takes the smallest H whose in-control ARL reaches the target', () => {
    const shift = { p0: 0.05, p1: 0.2 };
    const d = designBernoulliCusum(shift, 1e6);
    expect(bernoulliArl(d, 0.05)).toBeGreaterThanOrEqual(1e6);
    expect(bernoulliArl({ ...d, h: d.h - 1 }, 0.05)).toBeLessThan(1e6);
    // Near-optimal: within twice the information bound at ARL0 = 10^4 (the target).
    expect(bernoulliArl(d, 0.2)).toBeLessThan(2 * detectionBoundUnits({ ...shift, a: 1e4 }));
  });
});

describe('BernoulliCusum', () => {
  it('adds the fail weight, floors at 0, signals at H, shows the crossing, restarts', () => {
    const chart = new BernoulliCusum({ failWeight: 10, passWeight: 4, h: 25, llrPerStep: 0.1 });
    expect(chart.add(false)).toBe(false);
    expect(chart.ratio).toBe(0);
    expect(chart.add(true)).toBe(false);
    expect(chart.ratio).toBe(10 / 25);
    expect(chart.add(false)).toBe(false);
    expect(chart.ratio * 25 * 0.1).toBeCloseTo(0.6, 10);
    expect(chart.add(true)).toBe(false); // 16
    expect(chart.add(true)).toBe(true); // 26 >= 25
    expect(chart.ratio).toBe(26 / 25);
    expect(chart.add(false)).toBe(false);
    expect(chart.ratio).toBe(0);
  });
});

describe('shiftByOddsRatio', () => {
  it('multiplies the odds of a bad trial: 0.05 -> 0.20 at 4.75, 0.01 -> 0.0458, 0.10 -> 0.20 at 2.25', () => {
    // By hand: 0.05/0.95 x 4.75 = 0.25, 0.25 / 1.25 = 0.2; 0.01/0.99 x 4.75 = 0.047980, / 1.047980.
    expect(shiftByOddsRatio(0.05, 4.75).p1).toBeCloseTo(0.2, 12);
    expect(shiftByOddsRatio(0.01, 4.75).p1).toBeCloseTo(0.045783, 6);
    expect(shiftByOddsRatio(0.1, 2.25).p1).toBeCloseTo(0.2, 12);
    expect(() => shiftByOddsRatio(0.1, 1)).toThrow(RangeError);
  });
});

describe('bernoulliWeights at a low p0', () => {
  it('shrinks the pass weight so the failure weight stays near the resolution (retry 0.01 -> 0.0222)', () => {
    // ln(0.022222/0.01) = 0.798508; -ln(0.977778/0.99) = 0.012422; ratio 64.28: pass 2, fail 129.
    const w = bernoulliWeights(shiftByOddsRatio(0.01, 2.25));
    expect(w.passWeight).toBe(Math.round(RESOLUTION / 64.28));
    expect(w.failWeight).toBe(129);
  });
});

describe('onLogitGrid', () => {
  it('puts nearby levels on one grid point, 0.05 log-odds apart', () => {
    expect(onLogitGrid(0.05)).toBe(onLogitGrid(0.0505));
    const a = onLogitGrid(0.05);
    const b = onLogitGrid(0.06);
    const logit = (p: number) => Math.log(p / (1 - p));
    expect(Math.round((logit(b) - logit(a)) / 0.05)).toBe(4);
    expect(Math.abs(logit(a) - logit(0.05))).toBeLessThanOrEqual(0.025);
  });
});

describe('BernoulliBaseline', () => {
  const HOUR = 3_600_000;
  it('counts the bins of the window, leaving out the lag and the current hour', () => {
    const b = new BernoulliBaseline({ binMs: HOUR, bins: 3, lagBins: 1 });
    // Hours 0..5: hour h has 10 trials, h of them bad.
    for (let h = 0; h < 6; h++) for (let i = 0; i < 10; i++) b.add({ time: h * HOUR + i, bad: i < h });
    // At hour 5 (current, left out), lag 1 (hour 4 left out): hours 1, 2, 3.
    expect(b.counts(5 * HOUR + 10)).toEqual({ n: 30, bad: 6 });
    // Shrunk toward 0.5 by 30 trials: (6 + 15) / 60.
    expect(b.level(5 * HOUR + 10, { p: 0.5, weight: 30 })).toBeCloseTo(21 / 60, 12);
  });

  it('forgets bins older than the window and judges a new chart against its prior', () => {
    const b = new BernoulliBaseline({ binMs: HOUR, bins: 2, lagBins: 0 });
    expect(b.level(0, { p: 0.05, weight: 500 })).toBe(0.05);
    b.add({ time: 0, bad: true });
    b.add({ time: 10 * HOUR, bad: false });
    expect(b.counts(11 * HOUR)).toEqual({ n: 1, bad: 0 });
    // A late trial older than what the ring holds is dropped.
    b.add({ time: HOUR, bad: true });
    expect(b.counts(11 * HOUR)).toEqual({ n: 1, bad: 0 });
  });
});

describe('BernoulliCusum.redesign', () => {
  it('keeps the evidence in nats on the new lattice, below the new H', () => {
    const chart = new BernoulliCusum({ failWeight: 10, passWeight: 4, h: 25, llrPerStep: 0.1 });
    chart.add(true); // 10 steps = 1 nat
    chart.redesign({ failWeight: 20, passWeight: 8, h: 100, llrPerStep: 0.05 });
    expect(chart.ratio * 100 * 0.05).toBeCloseTo(1, 12);
    expect(chart.ratio).toBe(20 / 100);
    chart.add(true); // 40
    chart.add(true); // 60
    chart.redesign({ failWeight: 2, passWeight: 1, h: 10, llrPerStep: 0.5 });
    // 3 nats would be 6 steps: below H 10, kept.
    expect(chart.ratio).toBe(6 / 10);
    chart.redesign({ failWeight: 2, passWeight: 1, h: 4, llrPerStep: 0.5 });
    // Not a signal by itself: held at H - 1.
    expect(chart.ratio).toBe(3 / 4);
  });
});
