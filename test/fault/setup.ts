/**
 * The fault matrix's rig: simulator, fault proxy in front of it, and an exporter wired
 * exactly as in production, all on one shared clock; retry backoff runs on instant timers
 * that read the same clock, so the breaker's probe interval is crossed by moving it.
 */
import pino from 'pino';
import { type FaultProxy, startFaultProxy } from '../../bench/shared/fault-proxy.ts';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/server.ts';
import type { RetryTimers } from '../../src/upstream/retry.ts';
import { FIXED_NOW } from '../helpers/harness.ts';

export const INTERVAL_MS = 10_000;

export interface Rig {
  readonly sim: RunningSimulator;
  readonly proxy: FaultProxy;
  readonly exporter: Exporter;
  readonly stations: readonly string[];
  readonly logs: string[];
  advance(ms: number): void;
  /** One poll of everything, as the loops would run it one interval later. */
  poll(): Promise<void>;
  /**
   * Collector data and self-metrics as of now (the served /metrics memoizes self-metrics for
   * a second of real time, which this rig's clock does not follow).
   */
  scrape(): Promise<string>;
  /** One scrape of the served /metrics. */
  scrapeApp(): Promise<string>;
  close(): Promise<void>;
}

/** Config sections that replace the rig's own (e.g. `planning`), beside `upstream` overrides. */
export type RigSections = Record<string, unknown>;

export async function startRig(
  token = 'demo-token',
  upstream: Record<string, unknown> = {},
  sections: RigSections = {},
): Promise<Rig> {
  let now = FIXED_NOW;
  const clock = () => now;
  const sim = await startSimulatorServer({
    seed: 3,
    now: clock,
    scale: { sites: 1, linesPerSite: 2, stationsPerLine: 4, measurementNames: 2, unitsPerHour: 120 },
    tokens: { [token]: { sites: 'all' } },
  });
  const proxy = await startFaultProxy(sim.url);
  const interval = `${INTERVAL_MS / 1000}s`;
  const config = configFromObject(
    {
      upstream: {
        base_url: proxy.url,
        token,
        concurrency: 4,
        max_requests_per_second: 10_000,
        timeout: '1s',
        retry: { max_attempts: 2, base_delay: '10ms', max_delay: '5s' },
        circuit_breaker: { failure_threshold: 5, probe_interval: interval },
        max_response_bytes: 1024 * 1024,
        ...upstream,
      },
      windows: ['1h'],
      // Every summary entity on every poll: the matrix tests faults, not the request plan.
      planning: { refresh: { '1h': interval } },
      summary: { interval, levels: ['station', 'line', 'site'], skip_idle: false },
      units: { interval },
      log: { level: 'debug' },
      ...sections,
    },
    { baseDir: process.cwd(), source: 'fault matrix' },
  );
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const retryTimers: RetryTimers = {
    now: clock,
    random: () => 0.5,
    setTimeout: (fn) => setImmediate(fn),
    clearTimeout: (h) => clearImmediate(h as NodeJS.Immediate),
  };
  const exporter = wireExporter(config, { wallClock: clock, logger, retryTimers });
  return {
    sim,
    proxy,
    exporter,
    stations: sim.sim.plant.stations.map((s) => s.id),
    logs,
    advance: (ms) => {
      now += ms;
    },
    async poll() {
      await exporter.scheduler.pollOnce();
    },
    async scrape() {
      const data = (await exporter.cache.respond('text', [])).body.toString('utf8');
      return `${data}\n${await exporter.registry.metrics()}`;
    },
    async scrapeApp() {
      return (await exporter.app.request('/metrics')).text();
    },
    async close() {
      await exporter.close();
      await proxy.close();
      await sim.close();
    },
  };
}

/** The value of one sample of `text`, by name and labels (a subset); undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** Sum of every sample of `name` matching `labels`. */
export function total(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Lines of the data exposition that mention `stationId`. */
export function seriesOf(text: string, stationId: string): string[] {
  return text.split('\n').filter((l) => !l.startsWith('#') && l.includes(stationId));
}

/** p99 of `n` sequential scrapes, in ms (recorded; speed targets belong to the benchmark). */
export async function scrapeP99(rig: Rig, n = 40): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await rig.scrapeApp();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n * 0.99)] ?? times.at(-1) ?? 0;
}
