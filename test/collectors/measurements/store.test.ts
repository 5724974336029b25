import { describe, expect, it } from 'vitest';
import { latestMeasurement, measurementWindow } from '../../../src/collectors/measurements/stats.ts';
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

  it('drops old records, empty series and stations that left the topology', () => {
    const s = new MeasurementStore();
    s.add([m(1, 1), m(5, 5), m(2, 2, { name: 'w' }), m(9, 9, { stationId: B })]);
    s.evictBefore(3);
    expect(s.seriesOf(A).map((x) => x.name)).toEqual(['v']);
    s.retainStations(new Set([A]));
    expect(s.seriesOf(B)).toEqual([]);
    expect(s.size()).toBe(1);
  });

  it('computes window statistics with the limits of the latest record in the window', () => {
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
    expect([w.upper, w.lower, w.outOfSpec]).toEqual([5, 3, 2]);
    expect(measurementWindow(rows, 100, 200)).toEqual({ samples: 0, nonNumeric: 0 });
    expect(latestMeasurement(rows)).toEqual({ value: { time: 5, value: 6 }, upper: 10, lower: 0 });
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
