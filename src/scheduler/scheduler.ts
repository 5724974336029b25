/**
 * The poller: discovers the topology, runs every enabled collector in the background on its
 * own interval, and publishes each collector's families to the exposition cache as a whole.
 * A scrape never waits for any of this; it serves whatever was last published.
 */
import type { Logger } from 'pino';
import type { CollectorJob } from '../collectors/collector.ts';
import { buildTopology } from '../collectors/topology/build.ts';
import { discoverSites } from '../collectors/topology/discover.ts';
import { topologyFamilies } from '../collectors/topology/families.ts';
import type { Topology } from '../collectors/topology/types.ts';
import type { Config } from '../config/schema.ts';
import type { ExpositionCache } from '../exposition/cache.ts';
import type { Family } from '../exposition/model.ts';
import type { SelfMetrics } from '../exposition/selfmetrics.ts';
import { createJobs } from '../poller/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { UpstreamError } from '../upstream/errors.ts';
import { type Loop, type LoopTimers, realLoopTimers, startLoop } from './loop.ts';

/** Status of one collector, for the landing page and readiness. */
export interface CollectorStatus {
  readonly name: string;
  readonly intervalMs: number;
  readonly polls: number;
  readonly lastOk?: boolean;
  readonly lastSuccessMs?: number;
  readonly lastDurationMs?: number;
  readonly lastError?: string;
}

export interface PollerDeps {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly cache: ExpositionCache;
  readonly self: SelfMetrics;
  readonly logger: Logger;
  /** Wall clock, epoch ms: window ends and data ages. */
  readonly clock?: () => number;
  readonly timers?: LoopTimers;
  readonly random?: () => number;
}

/** A background job whose result is published as one exposition part. */
interface Job {
  readonly name: string;
  readonly intervalMs: number;
  /** Returns true when the poll was complete (no failed request). */
  run(signal?: AbortSignal): Promise<boolean>;
}

/** Runs the collectors. Create with {@link createPoller}. */
export class Poller {
  private topology: Topology | undefined;
  private readonly statuses = new Map<string, CollectorStatus>();
  private readonly jobs: Job[];
  private loops: Loop[] = [];
  private readonly clock: () => number;

  constructor(private readonly deps: PollerDeps) {
    this.clock = deps.clock ?? Date.now;
    const topologyJob: Job = {
      name: 'topology',
      intervalMs: deps.config.discovery.refreshIntervalMs,
      run: (s) => this.refreshTopology(s),
    };
    const dataJobs = createJobs(deps).map((job) => ({
      name: job.name,
      intervalMs: job.intervalMs,
      run: (signal?: AbortSignal) => this.runCollector(job, signal),
    }));
    this.jobs = [topologyJob, ...dataJobs];
    for (const job of this.jobs) {
      this.statuses.set(job.name, { name: job.name, intervalMs: job.intervalMs, polls: 0 });
      deps.self.setCollectorInterval(job.name, job.intervalMs / 1000);
    }
  }

  /** The current topology, once discovered. */
  currentTopology(): Topology | undefined {
    return this.topology;
  }

  /** Per-collector status, in job order. */
  status(): CollectorStatus[] {
    return [...this.statuses.values()];
  }

  /**
   * True once the topology is known and every collector has completed a poll. A poll with
   * some failed requests still counts: its data is served, and its failures are metrics.
   */
  ready(): boolean {
    return this.topology !== undefined && this.status().every((s) => s.polls > 0);
  }

  /** One complete poll of everything, in order: topology first. Returns true when all succeeded. */
  async pollOnce(signal?: AbortSignal): Promise<boolean> {
    let ok = true;
    for (const job of this.jobs) ok = (await this.runJob(job, signal)) && ok;
    return ok;
  }

  /**
   * Starts the background loops: topology first; data collectors start once a topology
   * exists, each on its own interval.
   */
  start(opts: { alreadyPolled?: boolean } = {}): void {
    const timers = this.deps.timers ?? realLoopTimers;
    const random = this.deps.random;
    // After a pollOnce (config reload), the first runs wait one interval instead of repeating it.
    const delay = (job: Job) => (opts.alreadyPolled ? job.intervalMs : 0);
    const [topologyJob, ...dataJobs] = this.jobs;
    if (!topologyJob) return;
    let dataStarted = false;
    const startData = (initialDelay: (job: Job) => number) => {
      if (dataStarted) return;
      dataStarted = true;
      for (const job of dataJobs) {
        const run = (s: AbortSignal) => this.runJob(job, s).then(() => undefined);
        this.loops.push(
          startLoop({ intervalMs: job.intervalMs, initialDelayMs: initialDelay(job), run, timers, random }),
        );
      }
    };
    const retryMs = Math.min(topologyJob.intervalMs, 10_000);
    this.loops.push(
      startLoop({
        intervalMs: topologyJob.intervalMs,
        initialDelayMs: delay(topologyJob),
        timers,
        random,
        run: async (s) => {
          await this.runJob(topologyJob, s);
          // Nothing can be polled without a topology: until the first discovery succeeds,
          // retry it every few seconds rather than once per refresh interval.
          while (!this.topology && !s.aborted) {
            await abortableSleep(timers, retryMs, s);
            if (!s.aborted) await this.runJob(topologyJob, s);
          }
          if (this.topology) startData(() => 0);
        },
      }),
    );
    if (opts.alreadyPolled && this.topology) startData(delay);
  }

  /** Stops every loop and waits for running polls to end. */
  async stop(): Promise<void> {
    const loops = this.loops;
    this.loops = [];
    await Promise.all(loops.map((l) => l.stop()));
  }

  private async runJob(job: Job, signal?: AbortSignal): Promise<boolean> {
    const started = performance.now();
    let ok = false;
    let error: string | undefined;
    try {
      ok = await job.run(signal);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      if (err instanceof UpstreamError) this.deps.self.setUpstreamUp(false);
      this.deps.logger.warn({ collector: job.name, err: error }, 'poll failed; keeping the last good data');
    }
    const seconds = (performance.now() - started) / 1000;
    const now = this.clock();
    this.deps.self.collectorResult(job.name, ok, seconds, now);
    if (seconds * 1000 > job.intervalMs) {
      // Polls never overlap, so this collector's data is refreshed less often than configured.
      this.deps.logger.warn(
        { collector: job.name, seconds: Math.round(seconds), interval_seconds: job.intervalMs / 1000 },
        'poll took longer than its interval: raise upstream.max_requests_per_second or upstream.concurrency, or poll less (fewer windows, levels or stations)',
      );
    }
    const prev = this.statuses.get(job.name);
    this.statuses.set(job.name, {
      name: job.name,
      intervalMs: job.intervalMs,
      polls: (prev?.polls ?? 0) + 1,
      lastOk: ok,
      lastSuccessMs: ok ? now : prev?.lastSuccessMs,
      lastDurationMs: seconds * 1000,
      lastError: ok ? undefined : (error ?? prev?.lastError),
    });
    return ok;
  }

  private async publish(part: string, families: Family[]): Promise<void> {
    await this.deps.cache.publish(part, families);
    this.deps.self.setSnapshot(this.deps.cache.seriesCount(), this.deps.cache.lastRenderMs() / 1000);
  }

  private async refreshTopology(signal?: AbortSignal): Promise<boolean> {
    const { discovery } = this.deps.config;
    const found = await discoverSites(this.deps.client, discovery.siteIds, signal);
    this.deps.self.setUpstreamUp(true);
    const topology = buildTopology(found.sites, discovery, found.missingSiteIds);
    const missing = topology.missingStationIds.length + topology.missingSiteIds.length;
    this.deps.self.setStationsInaccessible(topology.missingStationIds.length);
    if (missing > 0) {
      this.deps.logger.warn(
        { stations: topology.missingStationIds, sites: topology.missingSiteIds },
        'configured stations or sites are not accessible with this token',
      );
    }
    if (topology.renamed > 0) {
      this.deps.logger.info(
        { renamed: topology.renamed },
        'sites, lines or groups share a name with a sibling: their labels carry an id suffix',
      );
    }
    if (topology.stations.length === 0) {
      this.deps.logger.warn('discovery found no station to export');
    }
    this.topology = topology;
    await this.publish('topology', topologyFamilies(topology));
    return true;
  }

  private async runCollector(job: CollectorJob, signal?: AbortSignal): Promise<boolean> {
    const topology = this.topology;
    if (!topology) throw new Error('no topology yet');
    const outcome = await job.poll({ topology, now: new Date(this.clock()), signal });
    await this.publish(job.name, outcome.families);
    return outcome.complete;
  }
}

function abortableSleep(timers: LoopTimers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const handle = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      timers.clearTimeout(handle);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates the poller. */
export function createPoller(deps: PollerDeps): Poller {
  return new Poller(deps);
}
