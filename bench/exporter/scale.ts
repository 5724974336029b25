/**
 * The benchmark's parameters: plant size, record rates, windows and load. `full` is what
 * bench/results/exporter.json records; `quick` is a smoke run of the same code at a tenth of the plant.
 */
import type { PlantScale } from '../../src/simulator/types.ts';

/** Everything that sizes one benchmark run. */
export interface BenchParams {
  readonly name: 'full' | 'quick';
  readonly seed: number;
  readonly scale: PlantScale;
  /** Rolling windows of the main exporter; the longest sets how much the first poll reads. */
  readonly windows: readonly string[];
  /** Rolling windows of the comparison exporter: same data, a shorter longest window. */
  readonly compareWindows: readonly string[];
  /** Poll interval of every collector; the steady-state poll runs one interval after the first. */
  readonly intervalMs: number;
  readonly upstreamConcurrency: number;
  /** Series of the synthetic render benchmark. */
  readonly syntheticSeries: number;
  readonly load: {
    readonly connections: number;
    /** Rounds the servers take turns in (see bench/load/loadgen-child.ts). */
    readonly rounds: number;
    readonly durationMs: number;
    readonly maxRequests: number;
    readonly warmupRequests: number;
    /** Unmeasured time per server before the rounds (JIT); see LoadSpec. */
    readonly warmupMs: number;
  };
}

/** A Saturday noon, away from any DST change (the same instant as the end-to-end tests). */
export const BENCH_NOW = Date.parse('2026-11-21T12:34:56.000Z');

export const BENCH_TOKEN = 'bench-token';

export const FULL: BenchParams = {
  name: 'full',
  seed: 7,
  // 5 sites x 20 lines x 10 stations = 1,000 stations; one unit enters each line every 2 minutes.
  scale: { sites: 5, linesPerSite: 20, stationsPerLine: 10, measurementNames: 20, unitsPerHour: 30 },
  windows: ['15m', '1h', '8h'],
  compareWindows: ['15m', '1h', '2h'],
  intervalMs: 60_000,
  upstreamConcurrency: 8,
  syntheticSeries: 100_000,
  // 0.5 s turns: 20 pairs of adjacent turns, so that the median ratio is steady on a shared machine.
  load: {
    connections: 4,
    rounds: 20,
    durationMs: 10_000,
    maxRequests: 40_000,
    warmupRequests: 3,
    warmupMs: 1_000,
  },
};

export const QUICK: BenchParams = {
  ...FULL,
  name: 'quick',
  // 1 site x 10 lines x 10 stations = 100 stations.
  scale: { ...FULL.scale, sites: 1, linesPerSite: 10 },
  load: {
    connections: 4,
    rounds: 2,
    durationMs: 1_000,
    maxRequests: 2_000,
    warmupRequests: 2,
    warmupMs: 100,
  },
};

/** Stations of a plant. */
export function stationCount(scale: PlantScale): number {
  return scale.sites * scale.linesPerSite * scale.stationsPerLine;
}

/**
 * The exporter's config as a user would write it (snake_case YAML keys), for
 * `configFromObject`. Every collector is enabled, each on the same interval.
 */
export function exporterConfigObject(
  p: BenchParams,
  baseUrl: string,
  names: readonly string[],
  windows: readonly string[],
  only?: 'measurements',
): Record<string, unknown> {
  const interval = `${p.intervalMs / 1000}s`;
  return {
    upstream: {
      base_url: baseUrl,
      token: BENCH_TOKEN,
      concurrency: p.upstreamConcurrency,
      // The benchmark measures the exporter, not a politeness limit.
      max_requests_per_second: 100_000,
      timeout: '120s',
    },
    windows: [...windows],
    summary: { enabled: only === undefined, interval },
    measurements: { enabled: true, interval, names: [...names] },
    units: { enabled: only === undefined, interval },
    log: { level: 'warn' },
  };
}
