/** The measurements collector's declared cost of its native histogram. */
import { describe, expect, it } from 'vitest';
import { CONTROL_FAMILIES } from '../../../src/collectors/measurements/control-families.ts';
import { measurementsCosts } from '../../../src/collectors/measurements/costs.ts';
import { measurementsCollector } from '../../../src/collectors/measurements/index.ts';
import { configFromObject } from '../../../src/config/load.ts';
import { seriesDropOrder } from '../../../src/planning/series-budget.ts';

const config = (histograms: Record<string, unknown>) =>
  configFromObject(
    {
      upstream: { base_url: 'http://x', token: 't' },
      measurements: { enabled: true, names: Array.from({ length: 20 }, (_, i) => `n${i}`), histograms },
    },
    { env: {}, baseDir: '/' },
  );

const counts = { stations: 1000, groups: 0, lines: 100, sites: 5, names: 4 };

function histogramSeries(histograms: Record<string, unknown>): number | undefined {
  return measurementsCosts
    .series(config(histograms), counts)
    .find((r) => r.family === 'station_measurement_value')?.series;
}

describe('measurements costs: the native histogram', () => {
  it('counts one series per histogram for the share of names that have one', () => {
    // 10 of 20 names have a histogram; a station measuring 4 names has 2 of them on average.
    expect(histogramSeries({})).toBe(1000 * 2);
    expect(histogramSeries({ max_names: 20 })).toBe(1000 * 4);
    expect(histogramSeries({ max_names: 1 })).toBe(0);
  });

  it('costs nothing when turned off', () => {
    expect(histogramSeries({ enabled: false })).toBeUndefined();
    expect(histogramSeries({ max_names: 0 })).toBeUndefined();
  });

  it('is the first family the series budget drops', () => {
    const lowest = [...(measurementsCosts.drops ?? [])].sort((a, b) => a.priority - b.priority)[0];
    expect(lowest?.family).toBe('station_measurement_value');
  });
});

describe('measurements costs: the control charts', () => {
  const charted = configFromObject(
    {
      upstream: { base_url: 'http://x', token: 't' },
      measurements: { enabled: true, names: ['vbat', 'temp'], control: { names: ['vbat'] } },
    },
    { env: {}, baseDir: '/' },
  );

  it('counts the steady series per chart with every detector on, family by family', () => {
    // 1,000 stations, one charted name of two, every rule, the CUSUM and the EWMA on: state,
    // centre, UCL, LCL, the limits' source, 4 event counters, 2 CUSUM sums, the EWMA and its
    // half-width: 13 per chart; and the name's 4 settings once.
    const rows = measurementsCosts
      .series(charted, { stations: 1000, groups: 0, lines: 100, sites: 5 })
      .filter((r) => r.family.startsWith('station_measurement_control_'));
    const total = rows.reduce((n, r) => n + r.series, 0);
    expect(total).toBe(1000 * 13 + 4);
    expect(rows.find((r) => r.family === 'station_measurement_control_violations_total')?.series).toBe(4000);
    // Every row is a family the series budget knows, so the estimate can drop it.
    const order = seriesDropOrder([measurementsCollector]);
    for (const r of rows) expect(order, r.family).toContain(r.family);
  });

  it('lets the series budget drop every control family, after the histogram and before the statistics', () => {
    const order = seriesDropOrder([measurementsCollector]);
    const controls = CONTROL_FAMILIES.map((f) => f.name);
    for (const name of controls) expect(order).toContain(name);
    const positions = controls.map((name) => order.indexOf(name));
    expect(Math.min(...positions)).toBe(1);
    expect(Math.max(...positions)).toBe(controls.length);
    expect(order.at(-1)).toBe('station_measurement_last_value');
  });
});

describe('measurements costs: the capability omissions', () => {
  const omitted = (measurements: Record<string, unknown>) =>
    measurementsCosts
      .series(
        configFromObject(
          {
            upstream: { base_url: 'http://x', token: 't' },
            windows: ['15m', '1h', '24h'],
            measurements: { enabled: true, names: ['a'], ...measurements },
          },
          { env: {}, baseDir: '/' },
        ),
        counts,
      )
      .find((r) => r.family === 'station_measurement_window_capability_omitted_series')?.series;

  it('counts none by default: the statistic is opt-in', () => {
    expect(omitted({})).toBe(0);
  });

  it('counts every index and reason (2 × 4 rows, 0 included) per station and selecting window', () => {
    const stats = ['samples', 'ppk', 'capability_omitted'];
    expect(omitted({ statistics: { default: stats } })).toBe(1000 * 3 * 8);
    expect(omitted({ statistics: { default: ['ppk'], windows: { '24h': stats } } })).toBe(1000 * 1 * 8);
  });
});
