/**
 * A collector declares its own costs, and the planning room reads them from the list it is given:
 * a small fake collector, added to the shipped list and edited nowhere else, is estimated,
 * planned and budgeted. The expected numbers are worked out here from the fake's declaration.
 */
import { describe, expect, it } from 'vitest';
import type { DataCollector } from '../../src/collectors/collector.ts';
import { COLLECTORS } from '../../src/collectors/index.ts';
import { configFromObject } from '../../src/config/load.ts';
import { LabelSet } from '../../src/exposition/model.ts';
import { planFor } from '../../src/planning/budget.ts';
import { SeriesBudget, seriesDropOrder } from '../../src/planning/series-budget.ts';
import { estimateSeries } from '../../src/planning/series-estimate.ts';
import { UNSHARDED } from '../../src/sharding/shard.ts';

const MINUTE = 60_000;

/** Widgets: two series per station, one request per 10 stations every 2 minutes. */
const widgets: DataCollector = {
  kind: 'data',
  name: 'widgets',
  families: [
    { name: 'station_widget_temperature_celsius', kind: 'gauge', labels: [], help: 'A test family.' },
  ],
  enabled: () => true,
  intervalMs: () => 2 * MINUTE,
  createJob: () => ({ poll: async () => ({ families: [], requests: 0, failures: 0 }) }),
  costs: {
    series: (_config, counts) => [
      { collector: 'widgets', family: 'station_widget_temperature_celsius', series: 2 * counts.stations },
    ],
    requests: (_config, plant) => ({
      records: {
        collector: 'widgets',
        requestsPerPoll: Math.ceil(plant.counts.stations / 10),
        intervalMs: 2 * MINUTE,
      },
    }),
    // Lower than any shipped family: the first to go.
    drops: [{ family: 'station_widget_temperature_celsius', priority: 1 }],
  },
};

const config = configFromObject(
  {
    upstream: { base_url: 'http://upstream.test', token: 't' },
    windows: ['1h'],
    planning: { max_series: 1000 },
  },
  { env: {}, baseDir: '/' },
);
const counts = { stations: 40, groups: 0, lines: 4, sites: 1 };
const collectors = [...COLLECTORS, widgets];

describe('a collector that declares its costs', () => {
  it('is estimated: its series are in the rows, under its name', () => {
    const estimate = estimateSeries(config, counts, collectors);
    expect(estimate.rows.filter((r) => r.collector === 'widgets')).toEqual([
      { collector: 'widgets', family: 'station_widget_temperature_celsius', series: 80 },
    ]);
    const without = estimateSeries(config, counts);
    expect(estimate.total - without.total).toBe(80);
  });

  it('is planned: its requests are an entry of the plan at its interval', () => {
    const now = new Date('2026-03-02T12:00:00Z');
    const plan = planFor(config, { plant: { counts }, shard: UNSHARDED, now, collectors });
    const entry = plan.entries.find((e) => e.collector === 'widgets');
    // ceil(40 / 10) = 4 requests every 2 minutes: 2 a minute.
    expect(entry).toMatchObject({
      requests: 4,
      refreshMs: 2 * MINUTE,
      requestsPerMinute: 2,
      basis: 'interval',
    });
    const without = planFor(config, { plant: { counts }, shard: UNSHARDED, now });
    expect(plan.requestsPerMinute - without.requestsPerMinute).toBeCloseTo(2, 9);
  });

  it('is budgeted: over max_series its family goes first, whole', () => {
    const order = seriesDropOrder(collectors);
    expect(order[0]).toBe('station_widget_temperature_celsius');
    expect(seriesDropOrder()).not.toContain('station_widget_temperature_celsius');
    const budget = new SeriesBudget(100, order);
    const family = (name: string, n: number) => ({
      desc: { name, kind: 'gauge' as const, help: '' },
      samples: Array.from({ length: n }, (_, i) => ({ labels: LabelSet.of({ i: String(i) }), value: i })),
    });
    budget.filter('summary', [family('station_line_first_pass_yield_ratio', 60)]);
    const kept = budget.filter('widgets', [family('station_widget_temperature_celsius', 80)]);
    expect(kept).toEqual([]);
    expect([...budget.droppedFamilies()]).toEqual([['station_widget_temperature_celsius', 80]]);
  });
});
