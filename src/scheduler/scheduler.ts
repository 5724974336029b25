/**
 * Runs discovery, then every data collector on its own interval, and publishes each poll's
 * families to the exposition cache whole. It times every poll and writes all self-metrics, so
 * that no collector knows they exist; a scrape serves whatever was last published.
 */
import type {
  CollectorContext,
  DataCollector,
  DiscoveryCollector,
  PollContext,
  PollOutcome,
} from '../collectors/collector.ts';
import type { ExpositionCache } from '../exposition/cache.ts';
import type { SelfMetrics } from '../exposition/selfmetrics.ts';
import type { Topology } from '../model/topology.ts';
import { PlanTracker, type PlanTrackerDeps } from '../planning/plan-tracker.ts';
import { UpstreamError } from '../upstream/errors.ts';
import { abortableSleep, type Loop, type LoopTimers, realLoopTimers, startLoop } from './loop.ts';
import { classifyPoll, type PollClass, Staleness } from './staleness.ts';
import { type CollectorStatus, recordRun } from './status.ts';

export { Staleness } from './staleness.ts';
export type { CollectorStatus } from './status.ts';

/** What the scheduler runs, and the plan tracker's parts it shares. */
export interface SchedulerDeps
  extends Pick<PlanTrackerDeps, 'logger' | 'planner' | 'planMetrics' | 'seriesBudget'> {
  readonly discovery: DiscoveryCollector;
  readonly collectors: readonly DataCollector[];
  readonly context: CollectorContext;
  readonly cache: ExpositionCache;
  readonly selfMetrics: SelfMetrics;
  /** Wall clock, epoch ms: window ends and data ages. */
  readonly wallClock?: () => number;
  readonly timers?: LoopTimers;
  readonly random?: () => number;
  /** Each collector's own context (a client in its own limiter lane); default `context`. */
  readonly contextFor?: (collector: string) => CollectorContext;
  /** Called after every poll of a collector (to flush the log lines aggregated during it). */
  readonly onPollEnd?: (collector: string) => void;
  /** From the scheduler this one replaces (config reload): kept jobs by name, whose stores survive. */
  readonly reuseJobs?: ReadonlyMap<string, ReusableJob>;
  /** From the scheduler this one replaces: dropped collectors stay dropped, data keeps its age. */
  readonly reuseFreshness?: Staleness;
}

/** A data collector's job, kept across a reload when its settings did not change. */
export type ReusableJob = ReturnType<DataCollector['createJob']>;

/** Above this share of failed requests in a collector's last poll, `upstream_up` is 0. */
const UP_MAX_FAILED_SHARE = 0.1;

/** A collector's job as the scheduler runs it. */
interface ScheduledJob {
  readonly name: string;
  readonly intervalMs: number;
  /** Past this age without fresh data the collector's series are dropped; undefined: never. */
  readonly maxStalenessMs?: number;
  run(signal?: AbortSignal): Promise<PollOutcome>;
}

/** Runs the collectors. */
export class Scheduler {
  #topology: Topology | undefined;
  readonly #statuses = new Map<string, CollectorStatus>();
  /** Whether the upstream answered each collector's last poll; `upstream_up` is all of them. */
  readonly #upstreamOk = new Map<string, boolean>();
  readonly #discoveryJob: ScheduledJob;
  readonly #dataJobs: ScheduledJob[];
  #loops: Loop[] = [];
  /** Discovery (whose retry loop may never end while the upstream is down) and the watchdog. */
  #abortable: Loop[] = [];
  readonly #wallClock: () => number;
  /** The data collectors' jobs, so that a reload can keep them. */
  readonly jobsByName = new Map<string, ReusableJob>();
  /** When each collector last got new data and whether it is dropped; a reload keeps it. */
  readonly staleness: Staleness;
  readonly #plans: PlanTracker;
  readonly #deps: SchedulerDeps;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#wallClock = deps.wallClock ?? Date.now;
    this.staleness = deps.reuseFreshness ?? new Staleness();
    const { config } = deps.context;
    this.#plans = new PlanTracker({
      logger: deps.logger,
      wallClock: this.#wallClock,
      windows: config.windows.map((w) => w.name),
      collectors: deps.collectors.map((c) => c.name),
      planner: deps.planner,
      planMetrics: deps.planMetrics,
      seriesBudget: deps.seriesBudget,
    });
    const discovery = deps.discovery.createJob(deps.context);
    this.#discoveryJob = {
      name: deps.discovery.name,
      intervalMs: deps.discovery.intervalMs(config),
      run: async (signal) => {
        const outcome = await discovery.poll({ now: new Date(this.#wallClock()), signal });
        this.#plans.topology(outcome.topology);
        this.#topology = outcome.topology;
        return outcome;
      },
    };
    this.#dataJobs = deps.collectors.map((c) => {
      const job = deps.reuseJobs?.get(c.name) ?? c.createJob(deps.contextFor?.(c.name) ?? deps.context);
      this.jobsByName.set(c.name, job);
      return {
        name: c.name,
        intervalMs: c.intervalMs(config),
        maxStalenessMs: c.maxStalenessMs?.(config),
        run: (signal?: AbortSignal) => job.poll(this.#pollContext(signal)),
      };
    });
    for (const job of this.#jobs()) {
      this.#statuses.set(job.name, { name: job.name, intervalMs: job.intervalMs, polls: 0 });
      deps.selfMetrics.setCollectorInterval(job.name, job.intervalMs / 1000);
    }
  }

  /** The current topology, once discovered. */
  currentTopology(): Topology | undefined {
    return this.#topology;
  }

  /** Each collector's shortest and longest planned refresh (ms), from the plan in force. */
  plannedRefresh(): ReadonlyMap<string, { minMs: number; maxMs: number }> {
    return this.#plans.refreshRanges();
  }

  /** Per-collector status, discovery first. */
  status(): CollectorStatus[] {
    return [...this.#statuses.values()];
  }

  /** True once the topology is known and every collector has completed a poll (failed requests or not). */
  ready(): boolean {
    return this.#topology !== undefined && this.status().every((s) => s.polls > 0);
  }

  /** One complete poll of everything, in order: discovery first. Returns true when all succeeded. */
  async pollOnce(signal?: AbortSignal): Promise<boolean> {
    let ok = true;
    for (const job of this.#jobs()) ok = (await this.#runJob(job, signal)) && ok;
    return ok;
  }

  /** Starts the loops: discovery first; data collectors once a topology exists, each on its interval. */
  start(opts: { alreadyPolled?: boolean } = {}): void {
    const timers = this.#deps.timers ?? realLoopTimers;
    const random = this.#deps.random;
    // After a pollOnce (config reload), the first runs wait one interval instead of repeating it.
    const delay = (job: ScheduledJob) => (opts.alreadyPolled ? job.intervalMs : 0);
    let dataStarted = false;
    const startData = (initialDelay: (job: ScheduledJob) => number) => {
      if (dataStarted) return;
      dataStarted = true;
      for (const job of this.#dataJobs) {
        const run = (s: AbortSignal) => this.#runJob(job, s).then(() => undefined);
        this.#loops.push(
          startLoop({ intervalMs: job.intervalMs, initialDelayMs: initialDelay(job), run, timers, random }),
        );
      }
    };
    const discovery = this.#discoveryJob;
    const retryMs = Math.min(discovery.intervalMs, 10_000);
    this.#abortable.push(
      startLoop({
        intervalMs: discovery.intervalMs,
        initialDelayMs: delay(discovery),
        timers,
        random,
        run: async (s) => {
          await this.#runJob(discovery, s);
          // Nothing can be polled without a topology: retry discovery every few seconds until then.
          while (!this.#topology && !s.aborted) {
            await abortableSleep(timers, retryMs, s);
            if (!s.aborted) await this.#runJob(discovery, s);
          }
          if (this.#topology) startData(() => 0);
        },
      }),
    );
    if (opts.alreadyPolled && this.#topology) startData(delay);
    const watchMs = Math.min(...this.#dataJobs.map((j) => j.intervalMs), discovery.intervalMs);
    this.#loops.push(
      startLoop({
        intervalMs: watchMs,
        initialDelayMs: watchMs,
        timers,
        random,
        run: async () => this.watch(),
      }),
    );
  }

  /** Between polls, so that a hung poll cannot hide its state: not a success, and old data is dropped. */
  watch(): void {
    const now = this.#wallClock();
    for (const job of this.#dataJobs) {
      const since = this.staleness.runningSince(job.name);
      if (since !== undefined && now - since > job.intervalMs) {
        this.#deps.selfMetrics.collectorResult(job.name, {
          ok: false,
          seconds: (now - since) / 1000,
          nowMs: now,
          fresh: false,
        });
      }
      this.#dropIfStale(job, now);
    }
  }

  #dropIfStale(job: ScheduledJob, now: number): void {
    if (job.maxStalenessMs === undefined || !this.staleness.isStale(job.name, now, job.maxStalenessMs))
      return;
    this.staleness.markDropped(job.name);
    this.#deps.cache.remove(job.name);
    this.#deps.selfMetrics.setSnapshot(
      this.#deps.cache.seriesCount(),
      this.#deps.cache.lastRenderMs() / 1000,
    );
    this.#deps.selfMetrics.setCollectorStale(job.name, { stale: true });
    this.#deps.logger.warn(
      { collector: job.name, max_staleness_seconds: job.maxStalenessMs / 1000 },
      'data older than max_staleness: its series are dropped until a poll succeeds',
    );
  }

  /** Stops every loop, letting running polls finish: a reload's kept job never runs twice at once. */
  async drain(): Promise<void> {
    const [loops, abortable] = [this.#loops, this.#abortable];
    this.#loops = [];
    this.#abortable = [];
    await Promise.all([...loops.map((l) => l.drain()), ...abortable.map((l) => l.stop())]);
  }

  /** The data collectors whose poll is running now; a shutdown past its deadline names them. */
  runningPolls(): string[] {
    return this.#dataJobs.filter((j) => this.staleness.runningSince(j.name) !== undefined).map((j) => j.name);
  }

  /** Stops every loop and waits for running polls to end. */
  async stop(): Promise<void> {
    const loops = [...this.#loops, ...this.#abortable];
    this.#loops = [];
    this.#abortable = [];
    await Promise.all(loops.map((l) => l.stop()));
  }

  #jobs(): ScheduledJob[] {
    return [this.#discoveryJob, ...this.#dataJobs];
  }

  #pollContext(signal?: AbortSignal): PollContext {
    const topology = this.#topology;
    if (!topology) throw new Error('no topology yet');
    const now = new Date(this.#wallClock());
    const plan = this.#plans.plan(now);
    return { topology, now, signal, ...(plan ? { plan } : {}) };
  }

  /** Runs one poll, times it, publishes its families and records its outcome. */
  async #runJob(job: ScheduledJob, signal?: AbortSignal): Promise<boolean> {
    const started = performance.now();
    this.staleness.start(job.name, this.#wallClock());
    let outcome: PollOutcome | undefined;
    let error: unknown;
    try {
      outcome = await job.run(signal);
      // A poll that brought no new data, past the staleness bound, would bring old values back.
      const past = this.staleness.pastBound(job.name, this.#wallClock(), job.maxStalenessMs);
      if (this.staleness.reached(job.name, classifyPoll(outcome)) || !past)
        await this.#publish(job.name, outcome);
    } catch (err) {
      error = err;
    }
    const seconds = (performance.now() - started) / 1000;
    const verdict = classifyPoll(error === undefined ? outcome : undefined);
    // A poll that overran its interval delivered its data, but late: not a success.
    const ok = this.staleness.success(job.name, { verdict, inTime: seconds * 1000 <= job.intervalMs });
    const now = this.#wallClock();
    this.#recordFreshness(job, { verdict, now });
    if (outcome && (outcome.requests > 0 || this.#statuses.get(job.name)?.polls === 0))
      this.#deps.selfMetrics.collectorRequests(job.name, outcome.requests, outcome.failures);
    this.#recordUpstream(job.name, outcome, error);
    // The data age counts from the last poll whose due parts all got new data, never from an idle one.
    this.#deps.selfMetrics.collectorResult(job.name, { ok, seconds, nowMs: now, fresh: verdict.fresh });
    this.#statuses.set(
      job.name,
      recordRun(this.#statuses.get(job.name), job, { ok, seconds, error, now: this.#wallClock() }),
    );
    this.#logRun(job, { seconds, error, hadData: this.#deps.cache.has(job.name) });
    this.#deps.onPollEnd?.(job.name);
    return ok;
  }

  /**
   * A collector is dropped as stale only when no new data at all arrived for max_staleness (deferred
   * parts are not failing), so one broken station cannot take every series with it.
   */
  #recordFreshness(job: ScheduledJob, poll: { readonly verdict: PollClass; readonly now: number }) {
    if (this.staleness.finish(job.name, poll) && job.maxStalenessMs !== undefined)
      this.#deps.selfMetrics.setCollectorStale(job.name, { stale: false });
    else this.#dropIfStale(job, poll.now);
  }

  async #publish(name: string, outcome: PollOutcome): Promise<void> {
    const { selfMetrics, cache } = this.#deps;
    await cache.publish(name, this.#plans.admit(name, outcome.families));
    selfMetrics.setSnapshot(cache.seriesCount(), cache.lastRenderMs() / 1000);
    this.#plans.published(name, outcome);
    const d = outcome.diagnostics;
    if (d?.levelsSkipped) selfMetrics.setLevelsSkipped(d.levelsSkipped);
    if (d?.stationsInaccessible !== undefined) selfMetrics.setStationsInaccessible(d.stationsInaccessible);
    for (const r of d?.recordsSkipped ?? []) selfMetrics.recordSkipped(r.endpoint, r.reason, r.count);
    for (const r of d?.labelValues ?? []) selfMetrics.labelValuesRedacted(name, r.reason, r.count);
    if (d?.summaryPartial !== undefined) selfMetrics.setSummaryPartial(d.summaryPartial);
    if (d?.limitsFileLoaded !== undefined) selfMetrics.recordLimitsFile({ ok: d.limitsFileLoaded });
  }

  /** `upstream_up`: 1 while no collector's last poll lost over {@link UP_MAX_FAILED_SHARE} of requests. */
  #recordUpstream(name: string, outcome: PollOutcome | undefined, error: unknown): void {
    // A poll that asked for nothing says nothing about the upstream: the last verdict stands.
    if (outcome && outcome.requests > 0) {
      this.#upstreamOk.set(name, outcome.failures / outcome.requests <= UP_MAX_FAILED_SHARE);
    } else if (error instanceof UpstreamError) this.#upstreamOk.set(name, false);
    this.#deps.selfMetrics.setUpstreamUp([...this.#upstreamOk.values()].every(Boolean));
  }

  #logRun(job: ScheduledJob, run: { seconds: number; error: unknown; hadData: boolean }): void {
    const { logger } = this.#deps;
    const { seconds, error } = run;
    if (error !== undefined) {
      const err = error instanceof Error ? error.message : String(error);
      // Before the first good poll there is nothing to keep; saying so would hide a bad token.
      const msg = run.hadData
        ? 'poll failed; keeping the last good data'
        : 'poll failed; no data yet: nothing is exported for this collector until a poll succeeds';
      logger.warn({ collector: job.name, err }, msg);
    }
    if (seconds * 1000 > job.intervalMs) {
      // Polls never overlap, so this collector's data is refreshed less often than configured.
      logger.warn(
        { collector: job.name, seconds: Math.round(seconds), interval_seconds: job.intervalMs / 1000 },
        'poll took longer than its interval: raise upstream.max_requests_per_second or upstream.concurrency, or poll less (fewer windows, levels or stations)',
      );
    }
  }
}
