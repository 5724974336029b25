/**
 * The "plant scale" benchmark: the exporter against the simulator at 1,000 and 5,000 stations,
 * windows 15m/1h/24h, `max_requests_per_second: 10`, on a simulated clock, for three refreshes of
 * the longest window. It reports the check-config plan, the achieved refresh (the data age just
 * before a refresh) per (window, level), the request rate (worst 10 s), idle skipping, and series.
 *
 * Time: the simulator's clock and the exporter's wall clock move to each poll's start; the request
 * limiter runs on a virtual clock that advances by its own waits, so it spaces requests exactly as
 * it would in real time without the benchmark waiting for it. Each request's virtual send time is
 * recorded by a dispatcher interceptor. A poll that takes longer than the interval (in virtual time)
 * delays the next, as the scheduler's loop does.
 */
import pino from 'pino';
import { Agent } from 'undici';
import { planReport } from '../../src/app/commands/check-config.ts';
import { wireExporter } from '../../src/app/wire.ts';
import { summaryRequestsPerLevel } from '../../src/collectors/summary/costs.ts';
import { configFromObject } from '../../src/config/load.ts';
import { Registry } from '../../src/exposition/client.ts';
import type { Family } from '../../src/exposition/model.ts';
import { UNSHARDED } from '../../src/sharding/shard.ts';
import { BENCH_NOW, BENCH_TOKEN, stationCount } from '../exporter/scale.ts';
import { startSimProcess } from '../exporter/sim-process.ts';

const MIN = 60_000;

/** One plant-scale run's results. */
export interface PlantResult {
  readonly stations: number;
  readonly units: boolean;
  readonly measuredMinutes: number;
  readonly plan: string;
  readonly simulatedMinutes: number;
  readonly polls: number;
  readonly wallSeconds: number;
  /** Planned and worst achieved refresh per "window level", seconds (after the first refresh). */
  readonly refresh: ReadonlyArray<{ window: string; level: string; planned: number; achieved: number }>;
  readonly requestsPerMinute: number;
  readonly worst10s: number;
  readonly idle: { skipped: number; verified: number; disagreements: number };
  /** Series published per collector at the end. */
  readonly series: Readonly<Record<string, number>>;
  /** Render time (both formats) of the steady poll whose publishes took longest, and its series. */
  readonly render?: { readonly ms: number; readonly series: number };
  /** Highest RSS of the bench process after a poll: the exporter and the harness (the simulator runs apart). */
  readonly rssMiB?: number;
  readonly longestPollSeconds: number;
  /** Longest poll after the first complete snapshot (virtual seconds). */
  readonly longestSteadyPollSeconds: number;
  readonly pollLog: ReadonlyArray<readonly [number, number]>;
  /**
   * Per window: virtual seconds from start until its station summaries were published for every
   * station (the first poll sends the shortest window first; collectors/summary/first-poll.ts).
   */
  readonly stationSummariesComplete?: Readonly<Record<string, number>>;
}

/** Station ids with a station-level summary sample, per window, in one summary publish. */
function stationsByWindow(families: readonly Family[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of families) {
    if (!f.desc.name.startsWith('station_')) continue;
    for (const sample of f.samples) {
      const text = sample.labels.text;
      const window = /window="([^"]*)"/.exec(text)?.[1];
      const station = /station_id="([^"]*)"/.exec(text)?.[1];
      if (window === undefined || station === undefined) continue;
      const set = out.get(window) ?? new Set<string>();
      set.add(station);
      out.set(window, set);
    }
  }
  return out;
}

function metricValues(registry: Registry, name: string) {
  return registry.getSingleMetric(name)?.get() as
    | Promise<{ values: Array<{ value: number; labels: Record<string, string> }> }>
    | undefined;
}

/** Runs one plant size. */
export async function runPlantScale(opts: {
  readonly stations: 1000 | 5000;
  /** Units on: needed for idle skipping; costs a day of unit records in memory. */
  readonly units: boolean;
  readonly levels?: readonly string[];
  /** Simulated minutes measured after settling: 45 is three refreshes of the longest (15m). */
  readonly measuredMinutes: number;
  readonly progress: (text: string) => void;
}): Promise<PlantResult> {
  const started = performance.now();
  const scale = {
    sites: opts.stations / 200,
    linesPerSite: 20,
    stationsPerLine: 10,
    measurementNames: 20,
    unitsPerHour: 30,
  };
  const sim = await startSimProcess({ seed: 7, scale, token: BENCH_TOKEN, nowMs: BENCH_NOW });
  let virtual = BENCH_NOW;
  let pollStart = BENCH_NOW;
  const sends: number[] = [];
  const dispatcher = new Agent({ keepAliveTimeout: 75_000, connections: 16 }).compose(
    (dispatch) => (o, handler) => {
      sends.push(virtual);
      return dispatch(o, handler);
    },
  );
  const registry = new Registry();
  const config = configFromObject(
    {
      upstream: {
        base_url: sim.url,
        token: BENCH_TOKEN,
        max_requests_per_second: 10,
        concurrency: 8,
        timeout: '120s',
      },
      windows: ['15m', '1h', '24h'],
      // Group level left out: with it, 15m station summaries do not fit 10 requests/s (the plan drops them).
      summary: { interval: '60s', levels: opts.levels ?? ['station', 'line', 'site'] },
      units: { enabled: opts.units },
      log: { level: 'warn' },
    },
    { baseDir: process.cwd(), source: 'plant-scale bench' },
  );
  const exporter = wireExporter(config, {
    wallClock: () => pollStart,
    dispatcher,
    registry,
    logger: pino({ level: 'error' }),
    limiterTimers: {
      now: () => virtual,
      setTimeout: (fn, ms) => {
        const at = virtual + ms;
        setImmediate(() => {
          virtual = Math.max(virtual, at);
          fn();
        });
      },
    },
  });
  // Each collector's publish, timed and counted as the cache itself measures it.
  const seriesByPart = new Map<string, number>();
  let pollRenderMs = 0;
  const publish = exporter.cache.publish.bind(exporter.cache);
  exporter.cache.publish = async (part, families) => {
    await publish(part, families);
    // The text formats, as the target was set (protobuf is reported by the main bench's rows).
    const byFormat = exporter.cache.lastRenderMsByFormat();
    pollRenderMs += byFormat.text + byFormat.openmetrics;
    seriesByPart.set(
      part,
      families.reduce((n, f) => n + f.samples.length, 0),
    );
    const stations = exporter.scheduler.currentTopology()?.stations.length ?? 0;
    if (part !== 'summary' || stations === 0) return;
    for (const [window, ids] of stationsByWindow(families)) {
      if (ids.size >= stations && stationSummariesComplete[window] === undefined)
        stationSummariesComplete[window] = (virtual - BENCH_NOW) / 1000;
    }
  };
  const stationSummariesComplete: Record<string, number> = {};
  let render = { ms: 0, series: 0 };
  let rss = 0;
  const achieved = new Map<string, number>();
  const planned = new Map<string, number>();
  let plan = '';
  let polls = 0;
  let longestPoll = 0;
  let longestSteady = 0;
  const pollLog: Array<[number, number]> = [];
  try {
    // Two refreshes of the longest window (15m) to settle after the first complete snapshot (a
    // slot's first gap includes the long polls that fetched it), then three refreshes measured. A
    // first poll at the ceiling sends the shortest window first and the others in the next polls
    // (collectors/summary/first-poll.ts): the snapshot is complete once /-/ready has no pending window.
    let firstEnd = 0;
    let warmEnd = 0;
    while (warmEnd === 0 || pollStart < warmEnd + (30 + opts.measuredMinutes) * MIN) {
      virtual = Math.max(virtual, pollStart);
      const begin = virtual;
      const sentBefore = sends.length;
      pollRenderMs = 0;
      await exporter.scheduler.pollOnce();
      polls++;
      rss = Math.max(rss, process.memoryUsage().rss);
      if (polls > 1 && pollRenderMs > render.ms)
        render = { ms: pollRenderMs, series: exporter.cache.seriesCount() };
      longestPoll = Math.max(longestPoll, virtual - begin);
      if (warmEnd > 0) longestSteady = Math.max(longestSteady, virtual - begin);
      pollLog.push([sends.length - sentBefore, (virtual - begin) / 1000]);
      // A window that never completes (an entity that always fails) must not stop the run.
      const pending = (await (await exporter.app.request('/-/ready')).text()).includes('pending');
      if (warmEnd === 0 && (!pending || polls >= 20)) warmEnd = virtual;
      if (firstEnd === 0) {
        firstEnd = virtual;
        const topology = exporter.scheduler.currentTopology();
        if (topology) {
          const perLevel = summaryRequestsPerLevel(topology, config.summary.levels);
          plan = planReport(
            config,
            {
              stations: topology.stations.length,
              groups: perLevel.group ?? 0,
              lines: perLevel.line ?? 0,
              sites: perLevel.site ?? 0,
            },
            { shard: UNSHARDED, now: new Date(pollStart) },
          );
        }
        opts.progress(`${opts.stations} stations: first poll done, ${sends.length} requests`);
      } else if (warmEnd > 0 && pollStart >= warmEnd + 30 * MIN) {
        for (const v of (await metricValues(registry, 'station_exporter_refresh_achieved_seconds'))?.values ??
          []) {
          if (v.labels.collector !== 'summary') continue;
          const key = `${v.labels.window} ${v.labels.level}`;
          achieved.set(key, Math.max(achieved.get(key) ?? 0, v.value));
        }
      }
      const next = Math.max(pollStart + MIN, virtual);
      await sim.advance(next - pollStart);
      pollStart = next;
    }
    for (const v of (await metricValues(registry, 'station_exporter_refresh_planned_seconds'))?.values ??
      []) {
      if (v.labels.collector === 'summary') planned.set(`${v.labels.window} ${v.labels.level}`, v.value);
    }
    const counter = async (name: string) =>
      ((await metricValues(registry, name))?.values ?? []).reduce((s, v) => s + v.value, 0);
    const idle = {
      skipped: await counter('station_exporter_idle_skipped_requests_total'),
      verified: await counter('station_exporter_idle_skip_verified_total'),
      disagreements: await counter('station_exporter_idle_skip_disagreements_total'),
    };
    const series = Object.fromEntries([...seriesByPart].filter(([, n]) => n > 0));
    // Steady state: from the first complete snapshot to the last send.
    const steady = sends.filter((t) => t >= warmEnd);
    const spanMin = (Math.max(...steady) - warmEnd) / MIN;
    let worst = 0;
    const sorted = [...sends].sort((a, b) => a - b);
    for (let i = 0, j = 0; i < sorted.length; i++) {
      while (sorted[i]! - sorted[j]! >= 10_000) j++;
      worst = Math.max(worst, i - j + 1);
    }
    return {
      stations: stationCount(scale),
      units: opts.units,
      measuredMinutes: opts.measuredMinutes,
      plan,
      simulatedMinutes: (pollStart - BENCH_NOW) / MIN,
      polls,
      wallSeconds: (performance.now() - started) / 1000,
      refresh: [...planned].map(([key, p]) => {
        const [window = '', level = ''] = key.split(' ');
        return { window, level, planned: p, achieved: achieved.get(key) ?? Number.NaN };
      }),
      requestsPerMinute: steady.length / spanMin,
      worst10s: worst,
      idle,
      series,
      render,
      rssMiB: rss / 2 ** 20,
      longestPollSeconds: longestPoll / 1000,
      longestSteadyPollSeconds: longestSteady / 1000,
      pollLog,
      stationSummariesComplete,
    };
  } finally {
    await exporter.close();
    await dispatcher.close();
    await sim.close();
  }
}
