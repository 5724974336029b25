/** The measurements collector's declared cost of its native histogram. */
import { describe, expect, it } from 'vitest';
import { measurementsCosts } from '../../../src/collectors/measurements/costs.ts';
import { configFromObject } from '../../../src/config/load.ts';

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
