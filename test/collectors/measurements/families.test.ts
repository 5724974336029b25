import { describe, expect, it } from 'vitest';
import {
  type MeasurementResult,
  measurementFamilies,
  ppk,
} from '../../../src/collectors/measurements/families.ts';
import type { MeasurementWindowStats } from '../../../src/collectors/measurements/stats.ts';
import { LabelSet } from '../../../src/exposition/model.ts';

const base: MeasurementWindowStats = { samples: 40, nonNumeric: 0, mean: 5, stddev: 0.5, upper: 8, lower: 1 };

describe('ppk', () => {
  it('uses the nearer limit with both limits', () => {
    // min(8 - 5, 5 - 1) / (3 * 0.5) = 3 / 1.5
    expect(ppk(base, 30)).toBeCloseTo(2, 12);
  });

  it('is one-sided with only one limit', () => {
    expect(ppk({ ...base, lower: undefined }, 30)).toBeCloseTo(2, 12);
    expect(ppk({ ...base, upper: undefined }, 30)).toBeCloseTo(4 / 1.5, 12);
  });

  it('is absent without limits, without spread or with too few samples', () => {
    expect(ppk({ ...base, upper: undefined, lower: undefined }, 30)).toBeUndefined();
    expect(ppk({ ...base, stddev: 0 }, 30)).toBeUndefined();
    expect(ppk({ ...base, samples: 29 }, 30)).toBeUndefined();
    expect(ppk({ ...base, samples: 30 }, 30)).toBeCloseTo(2, 12);
  });

  it('can be negative when the mean lies outside a limit', () => {
    expect(ppk({ ...base, mean: 9 }, 30)).toBeCloseTo(-1 / 1.5, 12);
  });
});

describe('measurementFamilies', () => {
  const station = LabelSet.of({ station: 'S', station_id: 'a'.repeat(24) });
  const result = (slot: string | null, stats: MeasurementWindowStats): MeasurementResult => ({
    station,
    name: 'vcc',
    slot,
    unit: 'V',
    minSamples: 30,
    latest: { value: { time: 1_500, value: 3.3 }, upper: 8 },
    windows: [{ window: '1h', stats }],
  });

  it('labels series with metric, slot only when set, and window; one info series per name', () => {
    const fams = measurementFamilies([result(null, base), result('2', { samples: 0, nonNumeric: 3 })]);
    const byName = Object.fromEntries(
      fams.map((f) => [f.desc.name, f.samples.map((s) => [s.labels.text, s.value])]),
    );
    expect(byName.station_measurement_info).toEqual([[`${station.text},metric="vcc",unit="V"`, 1]]);
    expect(byName.station_measurement_last_timestamp_seconds?.[0]?.[1]).toBe(1.5);
    expect(byName.station_measurement_lower_limit).toEqual([]);
    expect(byName.station_measurement_window_samples).toEqual([
      [`${station.text},metric="vcc",window="1h"`, 40],
      [`${station.text},metric="vcc",slot="2",window="1h"`, 0],
    ]);
    expect(byName.station_measurement_non_numeric_samples?.[1]?.[1]).toBe(3);
    // A window without numeric values has no mean and no Ppk.
    expect(byName.station_measurement_window_mean).toHaveLength(1);
    expect(byName.station_measurement_window_ppk?.[0]?.[1]).toBeCloseTo(2, 12);
  });

  it('describes every family as a gauge with HELP naming the upstream source', () => {
    for (const f of measurementFamilies([])) {
      expect(f.desc.name).toMatch(/^station_measurement_/);
      expect(['gauge', 'info']).toContain(f.desc.kind);
      expect(f.desc.help).toContain('GET /metrics');
    }
  });
});
