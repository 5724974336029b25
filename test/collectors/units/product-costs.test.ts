/**
 * The series estimate with products: the unit counts once per product label value (the list,
 * `other` and `unknown`), the control families once per product for a name charted per product,
 * and nothing more without products.
 */
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/load.ts';
import { estimateSeries } from '../../../src/planning/series-estimate.ts';

const load = (raw: Record<string, unknown>) =>
  configFromObject(
    { upstream: { base_url: 'http://x', token: 't' }, windows: ['1h', '8h'], ...raw },
    { env: {}, baseDir: '/' },
  );
const counts = { stations: 100, groups: 0, lines: 10, sites: 1 };
const of = (raw: Record<string, unknown>, family: string) =>
  estimateSeries(load(raw), counts).rows.find((r) => r.family === family)?.series;

describe('series estimate with products', () => {
  it('multiplies the unit counts by the product label values when products are a label', () => {
    const labelled = { products: { label: true, allow: ['A', 'B', 'C'] } };
    // 3 kinds (direction and result) by default, 2 windows; 3 products + other + unknown = 5.
    expect(of({}, 'station_unit_records')).toBe(100 * 2 * 3);
    expect(of(labelled, 'station_unit_records')).toBe(100 * 2 * 3 * 5);
    expect(of(labelled, 'station_unit_serials')).toBe(100 * 2 * 5);
    expect(of(labelled, 'station_units_total')).toBe(100 * 3 * 5);
    // An allow-list without the label adds nothing to the unit counts.
    expect(of({ products: { allow: ['A', 'B', 'C'] } }, 'station_unit_records')).toBe(100 * 2 * 3);
    expect(of(labelled, 'station_last_unit_timestamp_seconds')).toBe(100);
  });

  it('counts a chart per product for the names charted per product only', () => {
    const measurements = (byProduct: boolean) => ({
      products: { allow: ['A', 'B'] },
      measurements: {
        enabled: true,
        names: ['vbat', 'vcc'],
        control: { names: [{ name: 'vbat', by_product: byProduct }, 'vcc'] },
      },
    });
    const plain = of(measurements(false), 'station_measurement_control_center') ?? 0;
    const keyed = of(measurements(true), 'station_measurement_control_center') ?? 0;
    // Two names a station: vbat's chart becomes 4 (A, B, other, unknown), vcc's stays 1.
    expect(plain).toBe(100 * 2);
    expect(keyed).toBe(100 * (4 + 1));
  });
});
