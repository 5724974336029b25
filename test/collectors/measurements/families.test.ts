import { describe, expect, it } from 'vitest';
import { capability } from '../../../src/collectors/measurements/capability.ts';
import {
  MeasurementFamilyBuilder,
  type MeasurementResult,
  type StationRecordCounts,
} from '../../../src/collectors/measurements/families.ts';
import type { MeasurementWindowStats } from '../../../src/collectors/measurements/stats.ts';
import { LabelSet } from '../../../src/exposition/model.ts';

/** The families of all results added in one piece. */
function measurementFamilies(
  results: readonly MeasurementResult[],
  stations: readonly StationRecordCounts[] = [],
) {
  const builder = new MeasurementFamilyBuilder();
  builder.add(results);
  return builder.families(stations);
}

const base: MeasurementWindowStats = {
  samples: 40,
  nonNumeric: 0,
  passed: 0,
  failed: 0,
  mean: 5,
  stddev: 0.5,
  withinSigma: 0.25,
};
const both = { time: 0, upper: 8, lower: 1 };

describe('capability', () => {
  it('uses the nearer limit with both limits; Pp and Cp use the tolerance width', () => {
    const c = capability(base, both, 30);
    // min(8 - 5, 5 - 1) / (3 * 0.5) = 3 / 1.5
    expect(c.ppk).toBeCloseTo(2, 12);
    // (8 - 1) / (6 * 0.5)
    expect(c.pp).toBeCloseTo(7 / 3, 12);
    // with the within sigma 0.25: 3 / 0.75 and 7 / 1.5
    expect(c.cpk).toBeCloseTo(4, 12);
    expect(c.cp).toBeCloseTo(7 / 1.5, 12);
    expect(c.omitted).toEqual({});
  });

  it('is one-sided with only one limit, and Pp / Cp need both', () => {
    const upperOnly = capability(base, { time: 0, upper: 8 }, 30);
    expect(upperOnly.ppk).toBeCloseTo(2, 12);
    expect(upperOnly.pp).toBeUndefined();
    expect(upperOnly.cp).toBeUndefined();
    expect(capability(base, { time: 0, lower: 1 }, 30).ppk).toBeCloseTo(4 / 1.5, 12);
  });

  it('is left out, with its reason, without limits, with too few samples or without spread', () => {
    expect(capability(base, undefined, 30).omitted).toEqual({ ppk: 'no_limits', cpk: 'no_limits' });
    expect(capability({ ...base, samples: 29 }, both, 30).omitted).toEqual({
      ppk: 'too_few_samples',
      cpk: 'too_few_samples',
    });
    const flat = capability({ ...base, stddev: 0, withinSigma: 0.1 }, both, 30);
    expect(flat.ppk).toBeUndefined();
    expect(flat.omitted).toEqual({ ppk: 'zero_spread' });
    expect(flat.cpk).toBeCloseTo(3 / 0.3, 12);
    expect(capability({ ...base, samples: 30 }, both, 30).ppk).toBeCloseTo(2, 12);
  });

  it('can be negative when the mean lies outside a limit', () => {
    expect(capability({ ...base, mean: 9 }, both, 30).ppk).toBeCloseTo(-1 / 1.5, 12);
  });
});

describe('measurementFamilies', () => {
  const station = LabelSet.of({ station: 'S', station_id: 'a'.repeat(24) });
  const result = (
    slot: string | null,
    stats: MeasurementWindowStats,
    over: Partial<MeasurementResult> = {},
  ): MeasurementResult => ({
    station,
    name: 'vcc',
    slot,
    unit: 'V',
    minSamples: 30,
    latest: { time: 1_500, value: 3.3 },
    limits: both,
    attributes: false,
    windows: [{ window: '1h', stats }],
    ...over,
  });
  const empty: MeasurementWindowStats = { samples: 0, nonNumeric: 3, passed: 0, failed: 0 };

  it('labels series with metric, slot only when set, and window; one info series per name', () => {
    const fams = measurementFamilies([
      result(null, base),
      result('2', empty, { limits: { time: 0, upper: 8 } }),
    ]);
    const byName = Object.fromEntries(
      fams.map((f) => [f.desc.name, f.samples.map((s) => [s.labels.text, s.value])]),
    );
    expect(byName.station_measurement_info).toEqual([[`${station.text},metric="vcc",unit="V"`, 1]]);
    expect(byName.station_measurement_last_timestamp_seconds?.[0]?.[1]).toBe(1.5);
    expect(byName.station_measurement_lower_limit).toEqual([[`${station.text},metric="vcc"`, 1]]);
    expect(byName.station_measurement_window_samples).toEqual([
      [`${station.text},metric="vcc",window="1h"`, 40],
      [`${station.text},metric="vcc",slot="2",window="1h"`, 0],
    ]);
    expect(byName.station_measurement_window_non_numeric_samples?.[1]?.[1]).toBe(3);
    expect(byName.station_measurement_non_numeric_samples).toBeUndefined();
    // A window without numeric values has no mean and no Ppk.
    expect(byName.station_measurement_window_mean).toHaveLength(1);
    expect(byName.station_measurement_window_ppk?.[0]?.[1]).toBeCloseTo(2, 12);
    // The slot-2 series has too few samples for Ppk and Cpk.
    const omitted = Object.fromEntries(byName.station_measurement_window_capability_omitted_series ?? []);
    expect(omitted[`${station.text},window="1h",index="ppk",reason="too_few_samples"`]).toBe(1);
    expect(omitted[`${station.text},window="1h",index="cpk",reason="no_limits"`]).toBe(0);
  });

  it('exports attribute counts by outcome only for series that had attribute values', () => {
    const stats = { ...empty, passed: 5, failed: 2 };
    const fams = measurementFamilies([result(null, stats, { attributes: true }), result('1', stats)]);
    const attr = fams.find((f) => f.desc.name === 'station_measurement_window_attribute_samples');
    expect(attr?.samples.map((s) => [s.labels.text, s.value])).toEqual([
      [`${station.text},metric="vcc",window="1h",outcome="pass"`, 5],
      [`${station.text},metric="vcc",window="1h",outcome="fail"`, 2],
    ]);
  });

  it('describes every family with HELP naming the upstream source; counters end in _total', () => {
    for (const f of measurementFamilies([])) {
      expect(f.desc.name).toMatch(/^station_measurement_/);
      expect(['gauge', 'info', 'counter']).toContain(f.desc.kind);
      if (f.desc.kind === 'counter') expect(f.desc.name).toMatch(/_total$/);
      expect(f.desc.help).toContain('GET /metrics');
    }
  });

  it('gives the same families when the results are added in parts', () => {
    const other = LabelSet.of({ station: 'T', station_id: 'b'.repeat(24) });
    const results = [
      result('1', base),
      // The same name in another slot, in the next part: still one info series.
      result('2', empty),
      result(null, base, { station: other, limits: undefined }),
      result(null, base, { station: other, name: 'icc', windows: [{ window: '8h', stats: base }] }),
    ];
    const builder = new MeasurementFamilyBuilder();
    builder.add(results.slice(0, 1));
    builder.add(results.slice(1, 3));
    builder.add(results.slice(3));
    const parts = builder.families();
    expect(parts).toEqual(measurementFamilies(results));
    const info = parts.find((f) => f.desc.name === 'station_measurement_info');
    expect(info?.samples).toHaveLength(3);
    // Per station and window, every index and reason once: S/1h, T/1h and T/8h.
    const omitted = parts.find((f) => f.desc.name === 'station_measurement_window_capability_omitted_series');
    expect(omitted?.samples.map((s) => [s.labels.text, s.value])).toEqual(
      [
        [station, '1h', [0, 1, 0, 0, 0, 1, 0, 0]],
        [other, '1h', [1, 0, 0, 0, 1, 0, 0, 0]],
        [other, '8h', [0, 0, 0, 0, 0, 0, 0, 0]],
      ].flatMap(([labels, window, counts]) =>
        ['ppk', 'cpk'].flatMap((index, i) =>
          ['no_limits', 'too_few_samples', 'zero_spread', 'non_positive'].map((reason, j) => [
            `${(labels as LabelSet).text},window="${window}",index="${index}",reason="${reason}"`,
            (counts as number[])[i * 4 + j],
          ]),
        ),
      ),
    );
  });
});
