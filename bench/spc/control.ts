/**
 * Benchmark of the control charts in the measurements collector, not a test. Part of
 * `npm run bench` (bench/exporter/run.ts runs it in a child process), or on its own:
 *
 *   npx tsx bench/spc/control.ts [baseline hours, default 24] [stations, default 1000]
 *
 * The reference plant (1,000 stations) with control on for 5 names on every station, one record
 * per station and name every 2 minutes (30 an hour, the reference rate), a rolling baseline and a
 * 1h evaluation window. The history is added through the charts' store as the first poll's sync
 * would (no upstream), the first poll takes it into the charts, then each round adds the next
 * record of every chart, 2 minutes later, and polls, with the exporter's yielder under an
 * event-loop monitor; the control families are rendered once. Gives the time per poll, the worst
 * event-loop block, the extra series, their render time, the records the store holds and the
 * memory of the charts' history (heap and array buffers after a full garbage collection, against
 * the same before the charts existed; the V8 flag is set from inside, so no --expose-gc needed).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { ControlCharts } from '../../src/collectors/measurements/control.ts';
import { controlSeriesByFamily } from '../../src/collectors/measurements/control-families.ts';
import { MeasurementStore } from '../../src/collectors/measurements/store.ts';
import { buildTopology } from '../../src/collectors/topology/build.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import type { Topology } from '../../src/model/topology.ts';
import type { RecordStore } from '../../src/records/types.ts';
import type { MeasurementRecord, Site } from '../../src/upstream/types.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { withLoopMonitor } from '../shared/loop-delay.ts';

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const STEP_MS = 2 * 60_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const STATIONS_PER_LINE = 10;
const ROUNDS = Number(process.env.CONTROL_ROUNDS ?? 9);
/** A file to write a CPU profile of the rounds (not the history's load) to, for `--cpu-prof`'s viewers. */
const PROFILE = process.env.CONTROL_PROFILE;

/** What one run of the control bench measured. */
export interface ControlBenchResult {
  readonly stations: number;
  readonly names: number;
  readonly baselineHours: number;
  /** Records the store holds after the first poll (the charts' recent points and the windows). */
  readonly records: number;
  /** Records of the history passed to the charts. */
  readonly history: number;
  /** Heap and array buffers the store and the charts hold after the first poll, after a full GC. */
  readonly storeBytes: number;
  /** The same while the history waited for the first poll (the charts still loading). */
  readonly loadingBytes: number;
  /** Highest RSS of the process while the history was added and the first poll took it in. */
  readonly loadingPeakRss: number;
  /** RSS of the process before the store and the charts existed. */
  readonly startRss: number;
  /** The charts' typed columns and buckets alone (ControlCharts.history()). */
  readonly chartBytes: number;
  readonly charts: number;
  /** Wall time of the first poll, which takes the history into the charts. */
  readonly firstPollMs: number;
  /**
   * Wall time of each later poll's chart computation (turns included), in round order: from the
   * call of `families` to its result, not the event-loop monitor's set-up and wait around it.
   */
  readonly pollMs: readonly number[];
  /** CPU time of the same polls (this process, user + system): less disturbed by a busy machine. */
  readonly pollCpuMs: readonly number[];
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

function configOf(baselineHours: number, control: Record<string, unknown> = {}): Config {
  return configFromObject(
    {
      upstream: { base_url: 'http://bench', token: 't' },
      windows: ['1h'],
      measurements: {
        enabled: true,
        names: NAMES,
        control: { names: ['n.*'], baseline: { rolling: `${baselineHours}h` }, ...control },
      },
    },
    { env: {}, baseDir: '/' },
  );
}

/** Series a chart has in steady state: the planner's per-family figures, summed. */
function seriesPerChart(config: Config): number {
  let n = 0;
  for (const series of controlSeriesByFamily(config).perChart.values()) n += series;
  return n;
}

/** The steady series of a chart whatever its rules and detectors: those with all switched off. */
export function alwaysSeriesPerChart(): number {
  const off = { enabled: false };
  const rules = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((r) => [r, off]));
  return seriesPerChart(configOf(24, { rules, cusum: off, ewma: off }));
}

/** One record of `name` at `t` on station `stationId`. */
function record(stationId: string, name: string, t: number, value: number): MeasurementRecord {
  return {
    stationId,
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
  };
}

/** Deterministic values around 10 (a sum of three uniforms). */
function values(): () => number {
  let seed = 1;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return () => 10 + (rand() + rand() + rand() - 1.5);
}

/**
 * Adds the history up to NOW, as a first poll's sync would: in half-hour spans, each an answer
 * for a batch of stations (every record of the span for each), spans in time order, the event
 * loop turning between answers as it does while a sync waits for the next one (in one
 * synchronous run neither the RSS sampler of the combined row nor V8's tasks could run).
 * Samples the RSS after every answer.
 */
async function fill(
  store: RecordStore<MeasurementRecord>,
  topology: Topology,
  opts: FillOptions,
): Promise<number> {
  let n = 0;
  const from = NOW - HOUR - opts.baselineHours * HOUR;
  const stations = topology.stations;
  for (let first = 0; first < stations.length; first += STATIONS_PER_ANSWER) {
    const batch = stations.slice(first, first + STATIONS_PER_ANSWER);
    for (let a = from; a <= NOW; a += SPAN_MS) {
      const answer: MeasurementRecord[] = [];
      for (const st of batch)
        for (const name of NAMES)
          for (let t = a; t < Math.min(a + SPAN_MS, NOW + 1); t += STEP_MS)
            answer.push(record(st.id, name, t, opts.value()));
      store.add(answer);
      n += answer.length;
      opts.sample();
      await opts.yielder.yieldToLoop();
    }
  }
  return n;
}

/** Half an hour: the span of one answer of the first poll's record sync. */
const SPAN_MS = 30 * 60_000;
/** Stations one answer holds (a station_ids list within the URL limit). */
const STATIONS_PER_ANSWER = 100;

interface FillOptions {
  readonly baselineHours: number;
  readonly value: () => number;
  /** The charts' yielder: the event loop turns once after every answer. */
  readonly yielder: LoopYielder;
  /** Called after every answer (the RSS is sampled). */
  readonly sample: () => void;
}

/** A full garbage collection (the flag is set here, so the bench needs no node option). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Starts the V8 CPU profiler in this process. */
async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

/** Stops the profiler and writes its profile to `file`. */
async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
}

/** Fills the charts for `stations` stations and measures their first poll and {@link ROUNDS} more. */
export async function runControlBench(stations = 1000, baselineHours = 24): Promise<ControlBenchResult> {
  const topology = plant(stations);
  const config = configOf(baselineHours);
  // Twice, a moment apart: V8 frees the backing stores of dead typed arrays after a collection,
  // on a thread of its own, so one collection alone may still count them.
  const mem = async () => {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 200));
    collectGarbage();
    return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  };
  const heap0 = await mem();
  const startRss = process.memoryUsage.rss();
  let loadingPeakRss = startRss;
  const sample = () => {
    loadingPeakRss = Math.max(loadingPeakRss, process.memoryUsage.rss());
  };
  const store = new MeasurementStore();
  const yielder = new LoopYielder();
  const charts = new ControlCharts(
    { config, logger: pino({ level: 'silent' }), yielder, redact: (t: string) => t },
    store,
  );
  const value = values();
  const sync = (now: number) => {
    const from = charts.retainFrom(now, now - HOUR);
    charts.store.retainStations(new Set(topology.stations.map((s) => s.id)));
    return from;
  };
  const retainFrom = sync(NOW);
  const history = await fill(charts.store, topology, { baselineHours, value, sample, yielder });
  charts.store.evictBefore(retainFrom);
  const loadingBytes = (await mem()) - heap0;
  const first = performance.now();
  await charts.families(topology, { nowMs: NOW, complete: true });
  sample();
  const firstPollMs = performance.now() - first;
  const storeBytes = (await mem()) - heap0;
  const records = store.size();
  const pollMs: number[] = [];
  const pollCpuMs: number[] = [];
  let maxBlockMs = 0;
  let families: Awaited<ReturnType<typeof charts.families>> = [];
  const profiler = PROFILE === undefined ? undefined : await startProfile();
  for (let round = 1; round <= ROUNDS; round++) {
    const now = NOW + round * STEP_MS;
    charts.store.evictBefore(sync(now));
    charts.store.add(
      topology.stations.flatMap((st) => NAMES.map((name) => record(st.id, name, now, value()))),
    );
    // Timed inside the monitor: its set-up and the two timer turns it waits after the poll (to
    // see a block at the very end) are the bench's, not the poll's (they were 20 ms of each).
    const run = await withLoopMonitor(async () => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const done = await charts.families(topology, { nowMs: now, complete: true });
      pollMs.push(performance.now() - t0);
      const cpu = process.cpuUsage(c0);
      pollCpuMs.push((cpu.user + cpu.system) / 1000);
      return done;
    });
    maxBlockMs = Math.max(maxBlockMs, run.maxBlockMs);
    families = run.value;
  }
  if (profiler !== undefined && PROFILE !== undefined) await stopProfile(profiler, PROFILE);
  const held = charts.history();
  const cache = new ExpositionCache();
  // Asked for protobuf first, so that the render time covers every format.
  await cache.respond('protobuf', []);
  await cache.publish('control', families);
  const count = (name: string) => families.find((f) => f.desc.name === name)?.samples ?? [];
  const perChart = seriesPerChart(config);
  return {
    stations: topology.stations.length,
    names: NAMES.length,
    baselineHours,
    records,
    history,
    storeBytes,
    loadingBytes,
    loadingPeakRss,
    startRss,
    chartBytes: held.bytes,
    charts: held.charts,
    firstPollMs,
    pollMs,
    pollCpuMs,
    maxBlockMs,
    series: families.reduce((a, f) => a + f.samples.length, 0),
    maxSeries: topology.stations.length * NAMES.length * perChart,
    seriesPerChart: perChart,
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
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  console.log(
    `  history: ${r.history.toLocaleString('en')} records passed to ${r.charts.toLocaleString('en')} charts; the store then holds ${r.records.toLocaleString('en')}`,
  );
  console.log(
    `  history memory (store + charts, heap and array buffers after GC): ${mib(r.storeBytes)}, ${(r.storeBytes / r.charts / 1024).toFixed(1)} KiB per chart` +
      ` (typed columns and buckets alone: ${mib(r.chartBytes)}, ${(r.chartBytes / r.charts / 1024).toFixed(1)} KiB per chart)`,
  );
  console.log(
    `  while loading (history added, before the first poll): ${mib(r.loadingBytes)}; first poll ${r.firstPollMs.toFixed(0)} ms`,
  );
  console.log(
    `  highest RSS while the history came in and the first poll took it: ${mib(r.loadingPeakRss)} (${mib(r.startRss)} before the charts existed)`,
  );
  console.log(
    `  time per poll: fastest ${fastest.toFixed(1)} ms, median ${median.toFixed(1)} ms (${r.pollMs.length} polls 2 minutes apart, one new point per chart; wall clock incl. turns)`,
  );
  const cpu = [...r.pollCpuMs].sort((a, b) => a - b)[r.pollCpuMs.length >> 1] ?? 0;
  console.log(`  CPU time per poll: median ${cpu.toFixed(1)} ms`);
  console.log(`  worst event-loop block: ${r.maxBlockMs.toFixed(0)} ms`);
  console.log(
    `  extra series: ${r.series.toLocaleString('en')} now; at most ${r.maxSeries.toLocaleString('en')} (${r.seriesPerChart} per charted series); render ${r.renderMs.toFixed(1)} ms`,
  );
}

// By the script's name, not by import.meta.url: bundled into the combined run's child
// (bench/exporter/child-build.ts), this module's URL is the child's, which is argv[1] there.
if (process.argv[1]?.endsWith('/bench/spc/control.ts')) await main();
