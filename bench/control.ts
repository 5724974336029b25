/**
 * Benchmark of the control charts in the measurements collector, not a test:
 *
 *   npx tsx bench/control.ts [baseline hours, default 24]
 *
 * The reference plant (1,000 stations) with control on for 5 names on every station, one record
 * per station and name every 2 minutes (30 an hour, the reference rate), a rolling baseline and a
 * 1h evaluation window. The store is filled directly (no upstream), then one poll's charts are
 * computed with the exporter's turn queue under an event-loop monitor. Prints the time per poll,
 * the worst event-loop block, the extra series and the records held for the baseline.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createControlCharts } from '../src/collectors/measurements/control.ts';
import { controlSeriesPerSeries } from '../src/collectors/measurements/control-families.ts';
import { MeasurementStore } from '../src/collectors/measurements/store.ts';
import { buildTopology } from '../src/collectors/topology/build.ts';
import { configFromObject } from '../src/config/load.ts';
import type { MeasurementRecord, Site } from '../src/upstream/types.ts';
import { createTurns } from '../src/util/turns.ts';
import { withLoopMonitor } from './loop-delay.ts';

const STATIONS = 1000;
const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const STEP_MS = 2 * 60_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const baselineHours = Number(process.argv[2] ?? 24);

const hex = (n: number) => n.toString(16).padStart(24, '0');
const site: Site = {
  id: hex(1),
  name: 'Plant',
  description: '',
  lines: Array.from({ length: 100 }, (_, l) => ({
    id: hex(10_000 + l),
    name: `Line ${l}`,
    description: '',
    elements: Array.from({ length: 10 }, (_, s) => ({
      kind: 'station' as const,
      id: hex(100_000 + l * 10 + s),
      name: `S${s}`,
      description: '',
    })),
  })),
};
const none = { sites: [], lines: [], stations: [] };
const topology = buildTopology([site], { stationIds: [], include: none, exclude: none }, []);

const config = configFromObject(
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

function fill(store: MeasurementStore): number {
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

async function main() {
  const store = new MeasurementStore();
  const mem = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = mem();
  const records = fill(store);
  const heapStore = mem() - heap0;
  const charts = createControlCharts(
    { config, logger: pino({ level: 'silent' }), turns: createTurns() },
    store,
  );
  charts.retainFrom(NOW, NOW - HOUR);
  const times: number[] = [];
  let blocks: number[] = [];
  let series = 0;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    const { value, maxBlockMs } = await withLoopMonitor(() => charts.families(topology, NOW, true));
    times.push(performance.now() - t0);
    blocks = [...blocks, maxBlockMs];
    series = value.reduce((a, f) => a + f.samples.length, 0);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const charted = STATIONS * NAMES.length;
  console.log(
    `control charts: ${STATIONS} stations x ${NAMES.length} names, 30 records/h, rolling ${baselineHours}h + 1h window`,
  );
  console.log(
    `  records held for the charts: ${records.toLocaleString('en')} (heap and typed arrays about ${(heapStore / 2 ** 20).toFixed(0)} MiB)`,
  );
  console.log(
    `  time per poll: fastest ${sorted[0]?.toFixed(0)} ms, median ${sorted[2]?.toFixed(0)} ms (5 rounds, wall clock incl. turns)`,
  );
  console.log(`  worst event-loop block: ${Math.max(...blocks).toFixed(0)} ms`);
  console.log(
    `  extra series: ${series.toLocaleString('en')} now; at most ${(charted * controlSeriesPerSeries(config)).toLocaleString('en')} (${controlSeriesPerSeries(config)} per charted series)`,
  );
}

await main();
