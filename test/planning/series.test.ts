import { describe, expect, it } from 'vitest';
import { selectedFamiliesInTurns } from '../../src/collectors/measurements/selection.ts';
import { configFromObject } from '../../src/config/load.ts';
import { LabelSet } from '../../src/exposition/model.ts';
import { SERIES_DROP_ORDER, SeriesBudget } from '../../src/planning/series-budget.ts';
import { estimateSeries } from '../../src/planning/series-estimate.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

const family = (name: string, n: number) => ({
  desc: { name, kind: 'gauge' as const, help: '' },
  samples: Array.from({ length: n }, (_, i) => ({ labels: LabelSet.of({ i: String(i) }), value: i })),
});

describe('series budget', () => {
  it('drops whole families, lowest priority first, until the total fits', () => {
    const budget = new SeriesBudget(250);
    budget.filter('summary', [family('station_site_unique_units', 100)]);
    const kept = budget.filter('measurements', [
      family('station_measurement_window_mean', 100),
      family('station_measurement_window_min', 60),
      family('station_measurement_window_max', 60),
    ]);
    // 320 series: min goes first (260 left), then max (200 left); mean stays whole.
    expect(kept.map((f) => f.desc.name)).toEqual(['station_measurement_window_mean']);
    expect(kept[0]?.samples).toHaveLength(100);
    expect([...budget.droppedFamilies()]).toEqual([
      ['station_measurement_window_min', 60],
      ['station_measurement_window_max', 60],
    ]);
    expect(SERIES_DROP_ORDER).not.toContain('station_site_unique_units');
  });

  it('keeps everything without a limit', () => {
    const families = [family('station_measurement_window_min', 5)];
    expect(new SeriesBudget(undefined).filter('m', families)).toBe(families);
  });
});

const config = (measurements: Record<string, unknown>) =>
  configFromObject(
    {
      upstream: { base_url: 'http://x', token: 't' },
      windows: ['15m', '1h', '24h'],
      measurements: { enabled: true, names: Array.from({ length: 20 }, (_, i) => `n${i}`), ...measurements },
    },
    { env: {}, baseDir: '/' },
  );

describe('series estimate', () => {
  it('stays at or below 150k series for the reference plant with the default config', () => {
    // 1,000 stations in 100 lines of 5 sites; every station measures 4 of the 20 names, as in the bench.
    const counts = { stations: 1000, groups: 0, lines: 100, sites: 5, names: 4 };
    const estimate = estimateSeries(config({}), counts);
    expect(estimate.total).toBeLessThanOrEqual(150_000);
    const windowed = estimate.rows.find((r) => r.family === 'station_measurement_window_mean');
    expect(windowed?.series).toBe(1000 * 4 * 3);
    expect(estimate.rows.find((r) => r.family === 'station_measurement_window_min')?.series).toBe(0);
  });

  it('limits a statistic to some windows', () => {
    const estimate = estimateSeries(config({ statistics: { windows: { '24h': ['samples'] } } }), {
      stations: 10,
      groups: 0,
      lines: 1,
      sites: 1,
      names: 1,
    });
    expect(estimate.rows.find((r) => r.family === 'station_measurement_window_samples')?.series).toBe(30);
    expect(estimate.rows.find((r) => r.family === 'station_measurement_window_ppk')?.series).toBe(20);
  });
});

describe('measurement selection', () => {
  const station = LabelSet.of({ station: 's' });
  const stats = { samples: 3, nonNumeric: 0, mean: 1, min: 0, max: 2, stddev: 1, outOfSpec: 0 };
  const result = (slot: string | null) => ({
    station,
    name: 'vbat',
    slot,
    unit: 'V',
    minSamples: 2,
    latest: {},
    windows: [
      { window: '1h', stats },
      { window: '24h', stats },
    ],
  });
  const selection = {
    statistics: {
      default: ['mean' as const, 'samples' as const],
      windows: new Map([['24h', ['samples' as const]]]),
    },
    bySlot: false,
  };

  it('exports each statistic only for its windows, and drops the slot label of single-slot series', async () => {
    const families = await selectedFamiliesInTurns(
      [result('A')] as never,
      { selection, windows: ['1h', '24h'] },
      new LoopYielder(),
    );
    const mean = families.find((f) => f.desc.name === 'station_measurement_window_mean');
    expect(mean?.samples.map((s) => s.labels.text)).toEqual(['station="s",metric="vbat",window="1h"']);
    const samples = families.find((f) => f.desc.name === 'station_measurement_window_samples');
    expect(samples?.samples).toHaveLength(2);
    expect(families.find((f) => f.desc.name === 'station_measurement_window_min')?.samples).toHaveLength(0);
  });

  it('keeps the slot label where a station measures a name in several slots', async () => {
    const families = await selectedFamiliesInTurns(
      [result('A'), result('B')] as never,
      { selection, windows: ['1h', '24h'] },
      new LoopYielder(),
    );
    const mean = families.find((f) => f.desc.name === 'station_measurement_window_mean');
    expect(mean?.samples.map((s) => s.labels.text)).toEqual([
      'station="s",metric="vbat",slot="A",window="1h"',
      'station="s",metric="vbat",slot="B",window="1h"',
    ]);
  });
});
