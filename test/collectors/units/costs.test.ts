/** The units collector's series estimate counts the yield and retry CUSUM families. */
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/load.ts';
import { estimateSeries } from '../../../src/planning/series-estimate.ts';

const config = (units: Record<string, unknown>) =>
  configFromObject({ upstream: { base_url: 'http://x', token: 't' }, units }, { env: {}, baseDir: '/' });
const counts = { stations: 1000, groups: 0, lines: 100, sites: 5 };

describe('units series estimate', () => {
  it('counts by default a counter per station for retries and per line and kind, no gauge', () => {
    const rows = estimateSeries(config({}), counts).rows;
    const of = (family: string) => rows.find((r) => r.family === family)?.series;
    expect(of('station_unit_cusum_events_total')).toBe(1000);
    expect(of('station_unit_cusum_ratio')).toBeUndefined();
    expect(of('station_line_unit_cusum_events_total')).toBe(300);
    expect(of('station_line_unit_cusum_ratio')).toBeUndefined();
  });

  it('counts a counter and a gauge per exported kind at each level with the statistic on', () => {
    const cusum = {
      station_kinds: ['final_yield', 'retry_ratio'],
      line_kinds: ['final_yield'],
      statistic: true,
    };
    const rows = estimateSeries(config({ cusum }), counts).rows;
    const of = (family: string) => rows.find((r) => r.family === family)?.series;
    expect(of('station_unit_cusum_events_total')).toBe(2000);
    expect(of('station_unit_cusum_ratio')).toBe(2000);
    expect(of('station_line_unit_cusum_events_total')).toBe(100);
    expect(of('station_line_unit_cusum_ratio')).toBe(100);
  });

  it('counts none when the CUSUMs are off', () => {
    const rows = estimateSeries(config({ cusum: { enabled: false } }), counts).rows;
    expect(rows.filter((r) => r.family.includes('cusum'))).toEqual([]);
  });
});
