/**
 * Benchmark of the control charts in the measurements collector, not a test. Part of
 * `npm run bench` (bench/spc/control-section.ts runs it in a child process), or on its own:
 *
 *   npx tsx bench/spc/control.ts [baseline hours, default 24] [stations, default 1000]
 *
 * The reference plant (1,000 stations) with control on for 5 names on every station, one record
 * per station and name every 2 minutes (30 an hour, the reference rate), a rolling baseline and a
 * 1h evaluation window. The store is filled directly (no upstream), then one poll's charts are
 * computed with the exporter's turn queue under an event-loop monitor, and the control families
 * are rendered once. Gives the time per poll, the worst event-loop block, the extra series, their
 * render time and the records held for the baseline.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createControlCharts } from '../../src/collectors/measurements/control.ts';
import { controlSeriesPerSeries } from '../../src/collectors/measurements/control-families.ts';
import { MeasurementStore } from '../../src/collectors/measurements/store.ts';
import { buildTopology } from '../../src/collectors/topology/build.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import type { Topology } from '../../src/model/topology.ts';
import type { MeasurementRecord, Site } from '../../src/upstream/types.ts';
import { createTurns } from '../../src/util/turns.ts';
import { withLoopMonitor } from '../shared/loop-delay.ts';

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const STEP_MS = 2 * 60_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const STATIONS_PER_LINE = 10;
const ROUNDS = 5;

/** What one run of the control bench measured. */
export interface ControlBenchResult {
  readonly stations: number;
  readonly names: number;
  readonly baselineHours: number;
  readonly records: number;
  /** Heap and array buffers the filled store added. */
  readonly storeBytes: number;
  /** Wall time of each poll's chart computation (turns included), in round order. */
  readonly pollMs: readonly number[];
  /** Worst event-loop block over all rounds. */
  readonly maxBlockMs: number;
  /** Series of the control families at the last round, and the upper bound. */
  readonly series: number;
  readonly maxSeries: number;
  readonly seriesPerChart: number;
  /** Out-of-control charts at the last round (chance signals of the random values). */
  readonly outOfControl: number;
  /** Render of the control families alone (both formats, yields excluded). */
  readonly renderMs: number;
}

const hex = (n: number) => n.toString(16).padStart(24, '0');

/** A plant of `stations` stations, ten to a line, for the control benches. */
export function plant(stations: number): Topology {
  const site: Site = {
    id: hex(1),
    name: 'Plant',
    description: '',
    lines: Array.from({ length: Math.ceil(stations / STATIONS_PER_LINE) }, (_, l) => ({
      id: hex(10_000 + l),
      name: `Line ${l}`,
      description: '',
      elements: Array.from({ length: STATIONS_PER_LINE }, (_, s) => ({
        kind: 'station' as const,
        id: hex(100_000 + l * STATIONS_PER_LINE + s),
        name: `S${s}`,
        description: '',
      })),
    })),
  };
  const none = { sites: [], lines: [], stations: [] };
  return buildTopology([site], { stationIds: [], include: none, exclude: none }, []);
}

function configOf(baselineHours: number): Config {
  return configFromObject(
    {
      upstream: { base_url: 'http://bench', token: 't' },
      windows: ['1h'],
      measurements: {
        enabled: true,
        names: NAMES,
        control: { names: ['n.*'], baseline: { rolling: `${baselineHours}h` } },
      },
    },
    { env: {}, baseDir: '/' },
  );
}

function fill(store: MeasurementStore, topology: Topology, baselineHours: number): number {
  let n = 0;
  let seed = 1;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const from = NOW - HOUR - baselineHours * HOUR;
  for (const st of topology.stations) {
    const batch: MeasurementRecord[] = [];
    for (const name of NAMES) {
      for (let t = from; t <= NOW; t += STEP_MS) {
        const value = 10 + (rand() + rand() + rand() - 1.5);
        batch.push({
          stationId: st.id,
          slot: null,
          serial: `S${t}`,
          time: t,
          name,
          raw: String(value),
          value,
          unit: 'V',
          type: 'float',
          upper: 12,
          lower: 8,
          mode: null,
        });
      }
    }
    n += store.add(batch);
  }
  return n;
}

/** Fills a store for `stations` stations and measures {@link ROUNDS} polls of its charts. */
export async function runControlBench(stations = 1000, baselineHours = 24): Promise<ControlBenchResult> {
  const topology = plant(stations);
  const config = configOf(baselineHours);
  const store = new MeasurementStore();
  const mem = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = mem();
  const records = fill(store, topology, baselineHours);
  const storeBytes = mem() - heap0;
  const charts = createControlCharts(
    { config, logger: pino({ level: 'silent' }), turns: createTurns() },
    store,
  );
  charts.retainFrom(NOW, NOW - HOUR);
  const pollMs: number[] = [];
  let maxBlockMs = 0;
  let families: Awaited<ReturnType<typeof charts.families>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = performance.now();
    const run = await withLoopMonitor(() => charts.families(topology, { nowMs: NOW, complete: true }));
    pollMs.push(performance.now() - t0);
    maxBlockMs = Math.max(maxBlockMs, run.maxBlockMs);
    families = run.value;
  }
  const cache = new ExpositionCache();
  await cache.publish('control', families);
  const count = (name: string) => families.find((f) => f.desc.name === name)?.samples ?? [];
  const seriesPerChart = controlSeriesPerSeries(config);
  return {
    stations: topology.stations.length,
    names: NAMES.length,
    baselineHours,
    records,
    storeBytes,
    pollMs,
    maxBlockMs,
    series: families.reduce((a, f) => a + f.samples.length, 0),
    maxSeries: topology.stations.length * NAMES.length * seriesPerChart,
    seriesPerChart,
    outOfControl: count('station_measurement_control_state').filter((x) => x.value === 1).length,
    renderMs: cache.lastRenderMs(),
  };
}

/** The fastest and the median of the poll times. */
export function pollStats(r: ControlBenchResult): { fastest: number; median: number } {
  const sorted = [...r.pollMs].sort((a, b) => a - b);
  return { fastest: sorted[0] ?? 0, median: sorted[sorted.length >> 1] ?? 0 };
}

async function main() {
  const r = await runControlBench(Number(process.argv[3] ?? 1000), Number(process.argv[2] ?? 24));
  const { fastest, median } = pollStats(r);
  console.log(
    `control charts: ${r.stations} stations x ${r.names} names, 30 records/h, rolling ${r.baselineHours}h + 1h window`,
  );
  console.log(
    `  records held for the charts: ${r.records.toLocaleString('en')} (heap and typed arrays about ${(r.storeBytes / 2 ** 20).toFixed(0)} MiB)`,
  );
  console.log(
    `  time per poll: fastest ${fastest.toFixed(0)} ms, median ${median.toFixed(0)} ms (${r.pollMs.length} rounds, wall clock incl. turns)`,
  );
  console.log(`  worst event-loop block: ${r.maxBlockMs.toFixed(0)} ms`);
  console.log(
    `  extra series: ${r.series.toLocaleString('en')} now; at most ${r.maxSeries.toLocaleString('en')} (${r.seriesPerChart} per charted series); render ${r.renderMs.toFixed(1)} ms`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
