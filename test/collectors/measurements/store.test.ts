import { describe, expect, it } from 'vitest';
import { measurementWindow } from '../../../src/collectors/measurements/stats.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

function m(
  time: number,
  value: number | undefined,
  over: Partial<MeasurementRecord> = {},
): MeasurementRecord {
  return {
    stationId: A,
    slot: null,
    serial: `SN${time}`,
    time,
    name: 'v',
    raw: value === undefined ? 'PASS' : String(value),
    value,
    unit: 'V',
    type: 'float',
    upper: 10,
    lower: 0,
    mode: null,
    ...over,
  };
}

describe('MeasurementStore', () => {
  it('keeps one series per station, name and slot, and does not count a record twice', () => {
    const s = new MeasurementStore();
    const recs = [
      m(1, 1),
      m(2, 2),
      m(2, 5, { slot: '1' }),
      m(3, 3, { name: 'w' }),
      m(4, 4, { stationId: B }),
    ];
    expect(s.add(recs)).toBe(5);
    expect(s.add(recs)).toBe(0);
    expect(s.seriesOf(A).map((x) => `${x.name}/${x.slot}`)).toEqual(['v/null', 'v/1', 'w/null']);
    expect(s.seriesOf(B.toUpperCase())).toHaveLength(1);
    expect(s.size()).toBe(5);
  });

  it('drops old records, keeps empty series until their retention ends, and stations that left the topology', () => {
    const s = new MeasurementStore();
    s.add([m(1, 1), m(5, 5), m(2, 2, { name: 'w' }), m(9, 9, { stationId: B })]);
    s.evictBefore(3);
    // w's only record is gone, but w stays known until its retention ends.
    expect(s.seriesOf(A).map((x) => [x.name, x.rows.length])).toEqual([
      ['v', 1],
      ['w', 0],
    ]);
    s.forgetIdleBefore(2);
    expect(s.seriesOf(A)).toHaveLength(2);
    s.forgetIdleBefore(3);
    expect(s.seriesOf(A).map((x) => x.name)).toEqual(['v']);
    s.retainStations(new Set([A]));
    expect(s.seriesOf(B)).toEqual([]);
    expect(s.size()).toBe(1);
  });

  it("evaluates each value against its own record's limits, and keeps the newest limits a record had", () => {
    const s = new MeasurementStore();
    s.add([
      m(1, 2),
      m(2, 12), // outside the old limits [0, 10]
      m(3, undefined),
      m(4, 4, { upper: 5, lower: 3 }),
      m(5, 6), // after the window
    ]);
    const rows = s.seriesOf(A)[0]?.rows;
    if (!rows) throw new Error('no series');
    const w = measurementWindow(rows, 1, 5);
    expect(w.samples).toBe(3);
    expect(w.nonNumeric).toBe(1);
    expect(w.mean).toBeCloseTo(6, 12);
    expect(w.min).toBe(2);
    expect(w.max).toBe(12);
    // Sample standard deviation: deviations -4, 6, -2 -> sqrt(56 / 2).
    expect(w.stddev).toBeCloseTo(Math.sqrt(28), 12);
    // 2 in [0, 10], 12 outside [0, 10], 4 in [3, 5]: one value out of spec by its own limits.
    expect(w.outOfSpec).toBe(1);
    expect(measurementWindow(rows, 100, 200)).toEqual({ samples: 0, nonNumeric: 0, passed: 0, failed: 0 });
    const series = s.seriesOf(A)[0];
    expect(series?.latest).toEqual({ time: 5, value: 6 });
    expect(series?.limits).toEqual({ time: 5, upper: 10, lower: 0 });
  });

  it('reports no out-of-spec count without limits, and no stddev for one sample', () => {
    const s = new MeasurementStore();
    s.add([m(1, 2, { upper: undefined, lower: undefined })]);
    const rows = s.seriesOf(A)[0]?.rows;
    if (!rows) throw new Error('no series');
    const w = measurementWindow(rows, 0, 10);
    expect(w.outOfSpec).toBeUndefined();
    expect(w.stddev).toBeUndefined();
    expect(w.samples).toBe(1);
  });
});

describe('current limits', () => {
  it('a newer record without limits (or a non-numeric one) keeps the limits of the newest that has them', () => {
    const s = new MeasurementStore();
    s.add([m(1, 2, { upper: 8, lower: 1 }), m(2, 3, { upper: 9, lower: 2 })]);
    s.add([
      m(3, 4, { upper: undefined, lower: undefined }),
      m(4, undefined, { upper: undefined, lower: undefined }),
    ]);
    expect(s.seriesOf(A)[0]?.limits).toEqual({ time: 2, upper: 9, lower: 2 });
    // An older record arriving late does not replace newer limits.
    s.add([m(0, 1, { upper: 100, lower: -100 })]);
    expect(s.seriesOf(A)[0]?.limits).toEqual({ time: 2, upper: 9, lower: 2 });
    expect(s.seriesOf(A)[0]?.latest).toEqual({ time: 3, value: 4 });
  });

  it('evaluates values across a limit change in one window by their own limits', () => {
    const s = new MeasurementStore();
    // Limits tighten from [0, 10] to [4, 6] at t=3; 5 was inside both, 8 only inside the old ones.
    s.add([m(1, 8), m(2, 5), m(3, 8, { upper: 6, lower: 4 }), m(4, 5, { upper: 6, lower: 4 })]);
    const rows = s.seriesOf(A)[0]?.rows;
    if (!rows) throw new Error('no series');
    // Evaluated by the newest limits both 8s would be out: by their own limits only the second one is.
    expect(measurementWindow(rows, 0, 10).outOfSpec).toBe(1);
  });
});

describe('attribute values', () => {
  it('classifies pass and fail values case-insensitively; other text is neither', async () => {
    const { attributeClassifier } = await import('../../../src/collectors/measurements/store.ts');
    const s = new MeasurementStore(attributeClassifier(['PASS', 'OK'], ['FAIL', 'NG']));
    const raws = ['PASS', 'pass', 'Ok', 'FAIL', 'ng', 'NG ', 'maybe', ''];
    s.add(raws.map((raw, i) => m(i + 1, undefined, { raw })));
    const rows = s.seriesOf(A)[0]?.rows;
    if (!rows) throw new Error('no series');
    const w = measurementWindow(rows, 0, 100);
    expect([w.passed, w.failed, w.nonNumeric, w.samples]).toEqual([3, 2, 8, 0]);
    expect(s.seriesOf(A)[0]?.attributes).toBe(true);
  });
});
