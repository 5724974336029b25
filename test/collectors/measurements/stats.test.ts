import { describe, expect, it } from 'vitest';
import { capability } from '../../../src/collectors/measurements/capability.ts';
import { measurementWindow } from '../../../src/collectors/measurements/stats.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';

/** Rows of one series holding `values` at times 1, 2, 3, ... with limits [lower, upper]. */
function rowsOf(
  values: readonly number[],
  limits: { upper?: number; lower?: number } = { upper: 1, lower: 0 },
) {
  const s = new MeasurementStore();
  s.add(
    values.map(
      (value, i): MeasurementRecord => ({
        stationId: A,
        slot: null,
        serial: `SN${i}`,
        time: i + 1,
        name: 'v',
        raw: String(value),
        value,
        unit: 'V',
        type: null,
        upper: limits.upper,
        lower: limits.lower,
        mode: null,
      }),
    ),
  );
  const series = s.seriesOf(A)[0];
  if (!series) throw new Error('no series');
  return series;
}

describe('constant data', () => {
  it('has exactly its value as mean and no spread, so Ppk and Cpk are left out as zero_spread', () => {
    // The sum of thirty 0.1 is not 3 in binary floating point: a naive mean is 0.1 + a few ulps.
    let naive = 0;
    for (let i = 0; i < 30; i++) naive += 0.1;
    expect(naive / 30).not.toBe(0.1);
    const series = rowsOf(Array(30).fill(0.1));
    const w = measurementWindow(series.rows, 0, 100);
    expect(w.mean).toBe(0.1);
    expect(w.stddev).toBe(0);
    expect(w.withinSigma).toBe(0);
    const c = capability(w, series.limits, 30);
    expect(c.ppk).toBeUndefined();
    expect(c.cpk).toBeUndefined();
    expect(c.omitted).toEqual({ ppk: 'zero_spread', cpk: 'zero_spread' });
  });

  it('takes a spread of about one ulp as none (values one ulp apart)', () => {
    const v = 1234.5678;
    const next = v + v * Number.EPSILON;
    expect(next).not.toBe(v);
    const series = rowsOf([v, next, v, next, v, next], { upper: 2000, lower: 0 });
    const w = measurementWindow(series.rows, 0, 100);
    expect(w.stddev).toBe(0);
    expect(capability(w, series.limits, 2).omitted.ppk).toBe('zero_spread');
  });

  // A 1 GHz clock in Hz, a serial-like counter: a real spread far below 1e-9 of the offset.
  // The values are parsed from numerals as the upstream sends them; the expected sd is computed
  // here by a compensated two-pass formula over the parsed doubles, the mean as an exact
  // BigInt-free sum of deviations from the first value.
  const offsets = [
    { offset: 1e6, text: '1000000' },
    { offset: 1e9, text: '1000000000' },
    { offset: 1e12, text: '1000000000000' },
  ];
  for (const { offset, text } of offsets) {
    for (const step of [0.1, 0.01, 0.001]) {
      it(`keeps a real spread of ${step} at an offset of ${offset}`, () => {
        const digits = String(step).split('.')[1]?.length ?? 0;
        const numerals = [1, 2, 3, 5, 8].map((k) => `${text}.${(k * step).toFixed(digits).split('.')[1]}`);
        const values = numerals.map(Number);
        expect(new Set(values).size).toBe(values.length);
        const want = twoPassSd(values);
        const series = rowsOf(values, { upper: offset + 10, lower: offset - 10 });
        const w = measurementWindow(series.rows, 0, 100);
        expect(w.stddev).toBeGreaterThan(0);
        expect(Math.abs((w.stddev ?? 0) - want) / want).toBeLessThan(1e-9);
        // Ppk follows from that spread (both limits 10 away from the offset).
        const mean = values.reduce((a, v) => a + (v - offset), 0) / values.length + offset;
        const wantPpk = Math.min(offset + 10 - mean, mean - (offset - 10)) / (3 * want);
        const c = capability(w, series.limits, 2);
        expect(c.ppk).toBeDefined();
        expect(Math.abs((c.ppk ?? 0) - wantPpk) / wantPpk).toBeLessThan(1e-6);
        expect(w.withinSigma).toBeGreaterThan(0);
      });
    }
  }

  it('keeps a small but real spread around a moderate offset', () => {
    // 1000 + {0, 0.001, 0.002}: sd 0.001 is 1e-6 of the mean, computed without cancellation.
    const w = measurementWindow(rowsOf([1000, 1000.001, 1000.002]).rows, 0, 10);
    expect(w.stddev).toBeCloseTo(0.001, 9);
    expect(w.mean).toBeCloseTo(1000.001, 9);
  });

  it('survives values whose squares overflow', () => {
    const w = measurementWindow(rowsOf([1e200, 3e200]).rows, 0, 10);
    expect(w.mean).toBeCloseTo(2e200, -190);
    // sd of {1, 3} is sqrt(2); scaled by 1e200.
    expect((w.stddev ?? 0) / 1e200).toBeCloseTo(Math.SQRT2, 12);
  });
});

describe('Cpk from the moving range', () => {
  it('uses MR-bar / 1.128 over time-ordered values', () => {
    // Time order 1, 3, 2, 5, 4: moving ranges 2, 1, 3, 1, MR-bar 7/4; mean 3; sd sqrt(10/4).
    const series = rowsOf([1, 3, 2, 5, 4], { upper: 9, lower: 0 });
    const w = measurementWindow(series.rows, 0, 100);
    const within = 7 / 4 / 1.128;
    const sd = Math.sqrt(10 / 4);
    expect(w.withinSigma).toBeCloseTo(within, 12);
    expect(w.stddev).toBeCloseTo(sd, 12);
    const c = capability(w, series.limits, 5);
    expect(c.cpk).toBeCloseTo(Math.min(9 - 3, 3 - 0) / (3 * within), 12);
    expect(c.cp).toBeCloseTo(9 / (6 * within), 12);
    expect(c.ppk).toBeCloseTo(3 / (3 * sd), 12);
    expect(c.pp).toBeCloseTo(9 / (6 * sd), 12);
  });

  it('depends on the order in time, unlike the overall sd', () => {
    const sorted = measurementWindow(rowsOf([1, 2, 3, 4, 5]).rows, 0, 100);
    const zigzag = measurementWindow(rowsOf([1, 5, 2, 4, 3]).rows, 0, 100);
    expect(sorted.stddev).toBeCloseTo(zigzag.stddev ?? 0, 12);
    // Moving ranges 1,1,1,1 against 4,3,2,1.
    expect(sorted.withinSigma).toBeCloseTo(1 / 1.128, 12);
    expect(zigzag.withinSigma).toBeCloseTo(10 / 4 / 1.128, 12);
  });
});

/** Sample sd by two passes with Kahan-compensated sums of deviations from the first value. */
function twoPassSd(values: readonly number[]): number {
  const x0 = values[0] ?? 0;
  const kahan = (terms: readonly number[]) => {
    let sum = 0;
    let c = 0;
    for (const t of terms) {
      const y = t - c;
      const next = sum + y;
      c = next - sum - y;
      sum = next;
    }
    return sum;
  };
  const meanDev = kahan(values.map((v) => v - x0)) / values.length;
  const squares = kahan(values.map((v) => (v - x0 - meanDev) ** 2));
  return Math.sqrt(squares / (values.length - 1));
}
