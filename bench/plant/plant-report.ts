/**
 * The plant-scale rows of `npm run bench` (bench/results/exporter.json): the request budget and the
 * refresh it achieves at 1,000 and 5,000 stations, the series estimate of the reference plant, and
 * each plant's size figures.
 */
import { configFromObject } from '../../src/config/load.ts';
import { estimateSeries } from '../../src/planning/series-estimate.ts';
import type { ResultRow } from '../shared/results.ts';
import type { PlantResult } from './plant.ts';

/** Series of the default config for the reference plant: 1,000 stations, 20 names (4 per station), 3 windows. */
export function referenceSeries(): number {
  const config = configFromObject(
    {
      upstream: { base_url: 'http://reference', token: 't' },
      windows: ['15m', '1h', '24h'],
      measurements: { enabled: true, names: Array.from({ length: 20 }, (_, i) => `m${i}`) },
    },
    { env: {}, baseDir: '/' },
  );
  return estimateSeries(config, { stations: 1000, groups: 229, lines: 100, sites: 5, names: 4 }).total;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** The plants' targets, then one informational row per plant. */
export function plantRows(plants: readonly PlantResult[]): ResultRow[] {
  const k1 = plants.find((p) => p.stations === 1000);
  const achieved = (w: string) => k1?.refresh.find((r) => r.window === w && r.level === 'station')?.achieved;
  const notPlanned = (v: number | undefined) => (v === undefined ? { detail: 'not planned' } : {});
  const a15 = achieved('15m');
  const a24 = achieved('24h');
  return [
    {
      measure: '15m station summaries, oldest (1,000 stations)',
      value: a15,
      unit: 's',
      ...notPlanned(a15),
      target: { op: '<=', bound: 180 },
    },
    {
      measure: '24h station summaries, oldest (1,000 stations)',
      value: a24,
      unit: 's',
      ...notPlanned(a24),
      target: { op: '<=', bound: 900 },
    },
    {
      measure: 'Upstream requests in the worst 10 s (all plants, 10 requests/s allowed)',
      value: Math.max(...plants.map((p) => p.worst10s)),
      unit: 'requests',
      target: { op: '<=', bound: 100 },
    },
    {
      measure: 'Series of the default config, reference plant (estimate)',
      value: referenceSeries(),
      unit: 'series',
      target: { op: '<=', bound: 150_000 },
    },
    ...plants.map(plantRow),
  ];
}

/** One plant's poll time, with what it requested, rendered and held beside it. */
function plantRow(p: PlantResult): ResultRow {
  const complete = Object.entries(p.stationSummariesComplete ?? {})
    .map(([w, s]) => `${w} ${fmt(s)} s`)
    .join(', ');
  const render = p.render
    ? `; longest render of a steady poll ${fmt(p.render.ms, 1)} ms for ${fmt(p.render.series)} series`
    : '';
  const rss =
    p.rssMiB === undefined ? '' : `; highest RSS after a poll ${fmt(p.rssMiB)} MiB (exporter and harness)`;
  return {
    measure: `Plant of ${fmt(p.stations)} stations: longest poll after the first snapshot`,
    value: p.longestSteadyPollSeconds,
    unit: 's',
    detail:
      `first poll ${fmt(p.longestPollSeconds)} s at the ceiling; station summaries complete after ${complete || 'n/a'}; ` +
      `${fmt(p.requestsPerMinute, 1)} requests per minute; idle skipping ${p.units ? `saved ${fmt(p.idle.skipped)} requests` : 'off'}${render}${rss}`,
  };
}

/** How the plant rows were measured. */
export const PLANT_NOTE =
  'Plant rows: the simulator at 1,000 stations (units on, so idle skipping works) and 5,000 (units off), 10 stations per line, ' +
  '20 measurement names, 30 units per line per hour; windows 15m/1h/24h, `max_requests_per_second: 10`, summary every 60 s at ' +
  'levels station, line and site, on a simulated clock (bench/plant/plant.ts). Each plant runs until its first snapshot is complete, ' +
  '30 simulated minutes to settle, then 45 measured minutes at 1,000 stations and 15 at 5,000. Measurements are off there (their ' +
  'series are in the estimate and the main rows). "Oldest" is the exporter\'s own `station_exporter_refresh_achieved_seconds`, ' +
  'the worst gap between two answers of one entity.';
