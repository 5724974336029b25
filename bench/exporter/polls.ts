/**
 * The exporter against the simulator child: a first poll from nothing, then, one interval
 * later on the shared simulated clock, a steady-state poll. Each is measured per collector
 * (wall time from the scheduler, upstream requests and bytes from the self-metrics).
 */
import pino from 'pino';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { type GcPause, withLoopMonitor } from '../shared/loop-delay.ts';
import { readTraffic, type Traffic, trafficDelta, trafficTotal } from './counters.ts';
import { type BenchParams, exporterConfigObject } from './scale.ts';
import type { SimProcess } from './sim-process.ts';

/** The upstream endpoints each collector calls; the scheduler runs them one after another. */
export const COLLECTOR_ENDPOINTS: Readonly<Record<string, readonly string[]>> = {
  topology: ['sites', 'site'],
  summary: ['station_summary'],
  measurements: ['metrics'],
  units: ['units'],
};

/** One collector within one poll. */
export interface CollectorPoll {
  readonly name: string;
  readonly wallMs: number;
  readonly ok: boolean;
  readonly requests: number;
  readonly bytes: number;
}

/** One complete poll (`pollOnce`: topology, then every enabled collector). */
export interface PollResult {
  readonly wallMs: number;
  readonly maxBlockMs: number;
  /** The longest garbage-collection pause during the poll (see withLoopMonitor). */
  readonly longestGc: GcPause;
  readonly requests: number;
  readonly bytes: number;
  readonly collectors: readonly CollectorPoll[];
  /** CPU time of the exporter's process during the poll. */
  readonly exporterCpuMs: number;
  /** CPU time of the simulator child during the poll, and the requests it received. */
  readonly simCpuMs: number;
  readonly simRequests: number;
}

/** A publish of one exposition part, as the cache did it. */
export interface PartRender {
  readonly series: number;
  /** Both text formats, yields excluded (`ExpositionCache.lastRenderMsByFormat`). */
  readonly renderMs: number;
  /** Protobuf, yields excluded. */
  readonly protobufRenderMs: number;
  /** Render, encode, deflate and swap. */
  readonly wallMs: number;
}

/** A wired exporter whose polls are measured. */
export interface MeasuredExporter {
  readonly exporter: Exporter;
  readonly collectors: readonly string[];
  poll(): Promise<PollResult>;
  /** The latest publish of each part. */
  renders(): ReadonlyMap<string, PartRender>;
}

function countSeries(families: Parameters<Exporter['cache']['publish']>[1]): number {
  let n = 0;
  for (const f of families) n += f.samples.length;
  return n;
}

/** Times every publish of the exporter's cache without changing what it does. */
function instrumentCache(exporter: Exporter): Map<string, PartRender> {
  const renders = new Map<string, PartRender>();
  const cache = exporter.cache;
  const publish = cache.publish.bind(cache);
  cache.publish = async (part, families) => {
    const started = performance.now();
    await publish(part, families);
    // The scheduler publishes one part at a time, so lastRenderMs is this part's.
    const byFormat = cache.lastRenderMsByFormat();
    renders.set(part, {
      series: countSeries(families),
      renderMs: byFormat.text + byFormat.openmetrics,
      protobufRenderMs: byFormat.protobuf,
      wallMs: performance.now() - started,
    });
  };
  return renders;
}

function collectorPolls(exporter: Exporter, traffic: Traffic): CollectorPoll[] {
  return exporter.scheduler.status().map((s) => {
    const t = trafficTotal(traffic, COLLECTOR_ENDPOINTS[s.name] ?? [s.name]);
    return { name: s.name, wallMs: s.lastDurationMs ?? 0, ok: s.lastOk ?? false, ...t };
  });
}

/** Wires an exporter against the simulator child with the benchmark's config. */
export function measuredExporter(
  p: BenchParams,
  sim: SimProcess,
  windows: readonly string[],
  only?: 'measurements',
): MeasuredExporter {
  const config = configFromObject(exporterConfigObject(p, sim.url, sim.measurementNames, windows, only), {
    baseDir: process.cwd(),
    source: 'benchmark',
  });
  const exporter = wireExporter(config, {
    wallClock: sim.now,
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
  const renders = instrumentCache(exporter);
  return {
    exporter,
    collectors: exporter.scheduler.status().map((s) => s.name),
    renders: () => renders,
    async poll() {
      const before = await readTraffic(exporter.registry);
      const simBefore = await sim.stats();
      const cpuBefore = process.cpuUsage();
      const {
        value: wallMs,
        maxBlockMs,
        longestGc,
      } = await withLoopMonitor(async () => {
        const started = performance.now();
        await exporter.scheduler.pollOnce();
        return performance.now() - started;
      });
      const cpu = process.cpuUsage(cpuBefore);
      const simAfter = await sim.stats();
      const traffic = trafficDelta(before, await readTraffic(exporter.registry));
      return {
        wallMs,
        maxBlockMs,
        longestGc,
        ...trafficTotal(traffic),
        collectors: collectorPolls(exporter, traffic),
        exporterCpuMs: (cpu.user + cpu.system) / 1000,
        simCpuMs: simAfter.cpuMs - simBefore.cpuMs,
        simRequests: simAfter.requests,
      };
    },
  };
}
