/**
 * Charts per product end to end: the exporter polls the simulator's realistic plant (2 to 4
 * products a line, `rf_tx_power` with a nominal per product) with that name charted per product.
 * Each station that measured it gets a chart for each product its units had (as the simulator's
 * own records say, through the allow-list), and no point is skipped for want of its unit's records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../../src/simulator/types.ts';
import { dataExposition, FIXED_NOW, type Harness, startHarness } from '../../helpers/harness.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NAME = 'rf_tx_power';
const SIM: SimulatorOptions = {
  seed: 5,
  plant: 'realistic',
  scale: { sites: 1, linesPerSite: 2, stationsPerLine: 4, measurementNames: 8, unitsPerHour: 60 },
};

describe('control charts per product on the realistic plant', () => {
  let h: Harness | undefined;
  let text = '';
  let self = '';
  let allow: string[] = [];
  let polledAt = 0;

  beforeAll(async () => {
    const probe = createSimulator({ ...SIM, now: () => FIXED_NOW });
    const types = new Set<string>();
    for (const r of probe.unitsBetween(
      probe.plant.stations.map((s) => s.id),
      new Date(FIXED_NOW - 8 * HOUR),
      new Date(FIXED_NOW),
    ))
      if (r.unit_type !== null) types.add(r.unit_type);
    allow = [...types].sort();
    h = await startHarness({
      sim: SIM,
      config: {
        windows: ['8h'],
        summary: { enabled: false },
        products: { allow },
        measurements: {
          enabled: true,
          names: [NAME],
          control: {
            names: [{ name: NAME, by_product: true }],
            baseline: { rolling: '6h' },
            min_samples: 10,
          },
        },
      },
    });
    await h.exporter.scheduler.pollOnce();
    h.advance(2 * MIN);
    await h.exporter.scheduler.pollOnce();
    polledAt = h.now();
    text = await dataExposition(h.exporter);
    self = await h.exporter.registry.metrics();
  }, 90_000);

  afterAll(async () => {
    await h?.close();
  });

  it("gives each station a chart for each of its units' products", () => {
    const truth = createSimulator({ ...SIM, now: () => polledAt });
    const expected = new Set<string>();
    const ids = truth.plant.stations.map((s) => s.id);
    const serials = new Map<string, string>();
    for (const u of truth.unitsBetween(ids, new Date(polledAt - 9 * HOUR), new Date(polledAt)))
      serials.set(
        u.unit_serial,
        u.unit_type === null ? 'unknown' : allow.includes(u.unit_type) ? u.unit_type : 'other',
      );
    for (const m of truth.metricsBetween(ids, {
      from: new Date(polledAt - 8 * HOUR),
      to: new Date(polledAt),
      names: [NAME],
    })) {
      const product = serials.get(m.unit_serial);
      if (product !== undefined) expected.add(`${m.station_id}|${product}`);
    }
    const charted = new Set(
      text
        .split('\n')
        .filter(
          (l) => l.startsWith('station_measurement_control_violations_total{') && l.includes('rule="1"'),
        )
        .map((l) => `${/station_id="([^"]*)"/.exec(l)?.[1]}|${/product="([^"]*)"/.exec(l)?.[1]}`),
    );
    expect(expected.size).toBeGreaterThan(4);
    expect(charted).toEqual(expected);
  });

  it('skips no point for want of its unit', () => {
    expect(self).not.toMatch(/records_skipped_total\{[^}]*reason="product_/);
  });
});
