/** Assembles an exporter from a validated config; the command line and the e2e tests share it. */

import pino, { type Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { ActivityBoard } from '../collectors/activity.ts';
import { DISCOVERY, enabledDataCollectors } from '../collectors/index.ts';
import { displayUrl } from '../config/describe.ts';
import { assertLoaded } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { ExpositionCache } from '../exposition/cache.ts';
import { Registry } from '../exposition/client.ts';
import { registerProcessMetrics } from '../exposition/process-metrics.ts';
import { SelfMetrics } from '../exposition/selfmetrics.ts';
import { planFor, plantOf, shardRequestRate } from '../planning/budget.ts';
import { PlanMetrics } from '../planning/plan-metrics.ts';
import { SeriesBudget } from '../planning/series-budget.ts';
import { SerialProducts } from '../records/products.ts';
import { RefusedStations } from '../records/refused.ts';
import type { LoopTimers } from '../scheduler/loop.ts';
import { type ReusableJob, Scheduler } from '../scheduler/scheduler.ts';
import { createApp, type ReloadResult } from '../server/app.ts';
import { type Shard, UNSHARDED } from '../sharding/shard.ts';
import { Breakers } from '../upstream/breaker.ts';
import { createClient, RECORD_ANSWERS_IN_HAND } from '../upstream/client.ts';
import { type ConnectionSettings, UpstreamConnection } from '../upstream/connection.ts';
import { ENDPOINT_NAMES } from '../upstream/endpoints.ts';
import { statusClass } from '../upstream/errors.ts';
import { Limiter, type Timers as LimiterTimers } from '../upstream/limiter.ts';
import type { RetryTimers } from '../upstream/retry.ts';
import { LogDigest } from '../util/log-digest.ts';
import { jsonLineToLogfmt } from '../util/logfmt.ts';
import { LoopYielder } from '../util/loop-yield.ts';
import { nudgeMemoryReducer } from '../util/memory-reducer.ts';
import { Redactor } from '../util/redact.ts';
import { VERSION } from '../version.ts';
import { RecentErrors } from './recent-errors.ts';
import { sameSettings } from './same.ts';
import {
  buildStatusModel,
  type FlaggedCharts,
  type LastUnitTimes,
  OfferedView,
  type SummaryWindows,
} from './status-model.ts';
import { TrackedToken } from './tracked-token.ts';

/** Upstream errors the status page remembers. */
const RECENT_ERRORS = 50;
/** Optional injections, mostly for tests. */
export interface WireOptions {
  readonly logger?: Logger;
  /** Wall clock, epoch ms: window ends, data ages. */
  readonly wallClock?: () => number;
  readonly dispatcher?: Dispatcher;
  readonly timers?: LoopTimers;
  readonly retryTimers?: RetryTimers;
  readonly random?: () => number;
  readonly registry?: Registry;
  /** Handler of POST /-/reload; without it the route answers 403 (the lifecycle API is off). */
  readonly reload?: () => Promise<ReloadResult>;
  /**
   * The exporter this one replaces (config reload): its registry and self-metrics are kept, its
   * client while the upstream settings hold, each collector's job while its settings hold.
   */
  readonly previous?: Exporter;
  /** This replica's shard (from `--shard`, the config or the pod name); default the config's. */
  readonly shard?: Shard;
  /** Timers of the request limiter (the benchmark runs it on a simulated clock). */
  readonly limiterTimers?: LimiterTimers;
  /** Learns every token used (each token file re-read too) to mask it; a reload keeps it. */
  readonly redactor?: Redactor;
  /** Export `process_*` and `nodejs_*` (the command line does; tests wire many exporters in one). */
  readonly processMetrics?: boolean;
  /** Where the metrics are served (`--web.telemetry-path`); default `/metrics`. */
  readonly metricsPath?: string;
}

/** What a reload can hand from one exporter to the next. */
type Upstream = ReturnType<typeof wireUpstream>;

/** A wired exporter, not yet polling. */
export interface Exporter {
  readonly config: Config;
  readonly scheduler: Scheduler;
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  readonly self: SelfMetrics;
  readonly app: ReturnType<typeof createApp>;
  readonly logger: Logger;
  readonly upstream: Upstream;
  readonly planMetrics: PlanMetrics;
  readonly shard: Shard;
  readonly redactor: Redactor;
  /** Wall clock, epoch ms (the option's, else `Date.now`). */
  readonly wallClock: () => number;
  /** Stops polling and closes upstream connections (unless `keepClient`: a successor uses them). */
  close(opts?: { keepClient?: boolean }): Promise<void>;
}

/** The log line formats of `--log.format`: logfmt (the default, as Prometheus's own) or JSON lines. */
export const LOG_FORMATS = ['logfmt', 'json'] as const;

/** How the process logs: the lowest level written, and the line format. */
export interface LogSettings {
  readonly level: string;
  readonly format?: (typeof LOG_FORMATS)[number];
}

/**
 * A logger on stderr (stdout stays free for `once`), logfmt or JSON lines. Every line passes
 * through `redactor`, whatever field carries a token (an error body echoing the Authorization header).
 */
export function createLogger(settings: LogSettings, redactor: Redactor = new Redactor()): Logger {
  const stderr = pino.destination(2);
  const shape = settings.format === 'json' ? (line: string) => line : jsonLineToLogfmt;
  const masked = { write: (line: string) => stderr.write(redactor.redact(shape(line))) };
  return pino({ level: settings.level, base: { app: 'station-exporter' } }, masked);
}

/** Time between two probes of one station the upstream refused. */
const REFUSED_REPROBE_MS = 10 * 60_000;

/** Wires an exporter from a validated config. */
export function wireExporter(config: Config, opts: WireOptions = {}): Exporter {
  assertLoaded(config);
  const prev = opts.previous;
  const lasting = lastingParts(config, opts);
  const shard = opts.shard ?? config.sharding.shard ?? UNSHARDED;
  // The limiter's ceiling is the shard's share of the budget, so sharding changes need a new client.
  const keepUpstream =
    prev !== undefined && sameSettings(prev.config, config, ['upstream', 'sharding']) && prev.shard === shard;
  const upstream = keepUpstream ? prev.upstream : wireUpstream(config, opts, { ...lasting, shard });
  // Protobuf only while a scraper asks for it: few do (native histograms), and rendering it on
  // every poll costs RSS (docs/scaling.md, "Mechanisms and what each one buys").
  const cache = new ExpositionCache({ yielder: upstream.yielder });
  // Not `opts`: its `previous` would keep every earlier exporter alive.
  const parts = { ...lasting, config, shard, upstream, cache };
  const scheduler = wireScheduler(parts, opts, keepUpstream ? reusableJobs(prev, config) : new Map());
  return {
    ...parts,
    scheduler,
    app: wireApp(parts, opts, scheduler),
    async close(closeOpts = {}) {
      await scheduler.stop();
      if (!closeOpts.keepClient) await upstream.client.close();
    },
  };
}

/** What the scheduler and the HTTP app are wired from. */
type Parts = Omit<Exporter, 'scheduler' | 'app' | 'close'>;

/**
 * The scheduler of the enabled collectors, each given what it needs (and what one offers
 * another: last unit times, flagged charts, summary windows, unit activity).
 */
function wireScheduler(parts: Parts, opts: WireOptions, reuseJobs: Map<string, ReusableJob>): Scheduler {
  const { config, shard, logger, wallClock, self, redactor, upstream: up } = parts;
  const { client } = up;
  const prev = opts.previous;
  const collectors = enabledDataCollectors(config);
  if (prev) forgetRemovedCollectors(prev, collectors);
  const context = {
    config,
    client,
    logger,
    yielder: up.yielder,
    redact: redactor.apply,
    refused: up.refused,
    offerLastUnitTime: up.lastUnitTimes.offer,
    offerFlaggedCharts: up.flaggedCharts.offer,
    offerSummaryWindows: up.summaryWindows.offer,
    shard,
    activity: up.activity,
    products: up.products,
  };
  return new Scheduler({
    discovery: DISCOVERY,
    collectors,
    context,
    contextFor: (name) => ({ ...context, client: client.forCollector(name) }),
    reuseJobs,
    reuseFreshness: prev?.scheduler.staleness,
    onPollEnd: (name) => {
      up.digest.flush(name);
      nudgeMemoryReducer();
    },
    cache: parts.cache,
    selfMetrics: self,
    logger,
    wallClock,
    timers: opts.timers,
    random: opts.random,
    planner: (topology) => {
      const plant = plantOf(topology);
      return (now) => planFor(config, { plant, shard, now });
    },
    planMetrics: parts.planMetrics,
    seriesBudget: new SeriesBudget(config.planning.maxSeries),
  });
}

/** The HTTP app: /metrics from the cache, the status page and the probes from the scheduler. */
function wireApp(parts: Parts, opts: WireOptions, scheduler: Scheduler): ReturnType<typeof createApp> {
  const { config, wallClock, self, redactor } = parts;
  const { errors, refused, lastUnitTimes, flaggedCharts, summaryWindows } = parts.upstream;
  const status = () => scheduler.status();
  const ready = () => scheduler.ready();
  const upstream = displayUrl(config.upstream.baseUrl);
  return createApp({
    cache: parts.cache,
    registry: parts.registry,
    self,
    version: VERSION,
    status,
    ready,
    windows: summaryWindows.read,
    upstream,
    wallClock,
    reload: opts.reload,
    redact: redactor.apply,
    metricsPath: opts.metricsPath,
    statusModel: () =>
      buildStatusModel({
        version: VERSION,
        upstream,
        wallClock,
        status,
        topology: () => scheduler.currentTopology(),
        ready,
        lastUnitTime: lastUnitTimes.read,
        errors,
        refused: () => refused.ids(),
        plannedRefresh: () => scheduler.plannedRefresh(),
        flaggedCharts: flaggedCharts.read,
        windows: summaryWindows.read,
      }),
  });
}

/**
 * What outlives a reload: the redactor, logger, registry and the metrics registered in it. Taken
 * from the previous exporter when there is one, else made (or taken from `opts`).
 */
function lastingParts(config: Config, opts: WireOptions) {
  const prev = opts.previous;
  const redactor = opts.redactor ?? prev?.redactor ?? new Redactor();
  if (config.upstream.token.kind === 'inline') redactor.add(config.upstream.token.value);
  const logger = opts.logger ?? prev?.logger ?? createLogger({ level: config.log.level }, redactor);
  const registry = prev?.registry ?? opts.registry ?? new Registry();
  const wallClock = opts.wallClock ?? Date.now;
  // Registered once per registry: a reload keeps them with the registry.
  const planMetrics = prev?.planMetrics ?? new PlanMetrics(registry);
  if (prev) return { redactor, logger, registry, wallClock, self: prev.self, planMetrics };
  const self = new SelfMetrics(registry, { version: VERSION, wallClock });
  if (opts.processMetrics) registerProcessMetrics(registry);
  self.initEndpoints(ENDPOINT_NAMES);
  self.recordReload({ ok: true, nowMs: wallClock() });
  return { redactor, logger, registry, wallClock, self, planMetrics };
}

/** The previous exporter's jobs whose settings did not change: their state carries over a reload. */
function reusableJobs(prev: Exporter, config: Config): Map<string, ReusableJob> {
  const reuse = new Map<string, ReusableJob>();
  for (const [name, job] of prev.scheduler.jobsByName) {
    // Products shape both record jobs' series and keys.
    if (sameSettings(prev.config, config, ['discovery', 'windows', 'products', name])) reuse.set(name, job);
  }
  return reuse;
}

/** Drops the self-metrics series of the collectors a reload turned off. */
function forgetRemovedCollectors(prev: Exporter, collectors: readonly { readonly name: string }[]): void {
  for (const s of prev.scheduler.status()) {
    if (s.name !== DISCOVERY.name && !collectors.some((c) => c.name === s.name))
      prev.self.forgetCollector(s.name);
  }
}

const CIRCUIT_LOG = {
  closed: ['info', 'closed: full load resumes'],
  open: ['warn', 'open: requests paused, probing slowly'],
  half_open: ['info', 'half-open: sending a probe'],
} as const;

/** The client and what shares its life: breakers, refused stations, token, log digest. */
function wireUpstream(
  config: Config,
  opts: WireOptions,
  deps: Pick<Parts, 'self' | 'logger' | 'wallClock' | 'shard' | 'redactor'>,
) {
  const { self, logger, wallClock, shard, redactor } = deps;
  const u = config.upstream;
  const yielder = new LoopYielder();
  const errors = new RecentErrors(RECENT_ERRORS, wallClock);
  const digest = new LogDigest(logger);
  const breakers = new Breakers({
    threshold: u.circuitBreaker.threshold,
    probeIntervalMs: u.circuitBreaker.probeIntervalMs,
    now: opts.retryTimers?.now ?? Date.now,
    onChange: (endpoint, state, failures) => {
      self.setCircuitState(endpoint, state);
      const [level, msg] = CIRCUIT_LOG[state];
      logger[level]({ endpoint, state, failures_in_a_row: failures }, `upstream circuit ${msg}`);
    },
  });
  for (const endpoint of ENDPOINT_NAMES) self.setCircuitState(endpoint, 'closed');
  const refused = new RefusedStations(REFUSED_REPROBE_MS, (size, added, cleared) => {
    self.setStationsRefused(size);
    if (added.length > 0) {
      logger.warn(
        { stations: added, refused_total: size },
        'upstream refuses these stations to the token (403): left out of polls, re-probed every 10 minutes',
      );
    }
    if (cleared.length > 0)
      logger.info({ stations: cleared, refused_total: size }, 'stations accessible again');
  });
  self.setStationsRefused(0);
  const tokens = new TrackedToken(config.upstream, { self, logger, wallClock, redactor });
  const client = createClient({
    baseUrl: u.baseUrl,
    token: () => tokens.get(),
    renewToken: () => tokens.renew(),
    timeoutMs: u.timeoutMs,
    maxResponseBytes: (e) => u.maxResponseBytesByEndpoint[e] ?? u.maxResponseBytes,
    retry: u.retry,
    retryTimers: opts.retryTimers,
    breakers,
    dispatcher: opts.dispatcher,
    connection: upstreamConnection(u.connection, logger),
    yielder,
    records: { naiveTimeZone: u.naiveTimeZone },
    recordAnswersInHand: Math.min(u.concurrency, RECORD_ANSWERS_IN_HAND),
    limiter: new Limiter({
      concurrency: u.concurrency,
      // A replica's ceiling is its share of the upstream's: the replicas together stay within it.
      ratePerSecond: shardRequestRate(config, shard),
      timers: opts.limiterTimers,
    }),
    observer: {
      // The event holds the status class, seconds and bytes the observation reads.
      request: (e) => self.observeRequest(e.endpoint, e),
      error: (e) => errors.record(e),
      retry: (endpoint, err) => self.recordRetry(endpoint, statusClass(err.status, err.reason)),
      skipped: ({ endpoint, reason, count: n, collector }) => {
        self.recordSkipped(endpoint, reason, n);
        digest.add(collector, {
          kind: 'upstream records skipped at the edge',
          fields: { endpoint, reason },
          n,
        });
      },
    },
  });
  return {
    client,
    refused,
    yielder,
    digest,
    errors,
    // Offered by one job to the status page or to another job: they live as long as the client.
    lastUnitTimes: new OfferedView(undefined) as LastUnitTimes,
    flaggedCharts: new OfferedView([]) as FlaggedCharts,
    summaryWindows: new OfferedView([]) as SummaryWindows,
    // The units job writes both; the summary job reads the activity to skip idle stations, the
    // measurements job's charts read each serial's product.
    activity: new ActivityBoard(),
    products: new SerialProducts(),
  };
}

/**
 * The connection with the config's TLS, proxy and redirect settings; a TLS file that turns bad
 * is logged, and the last good files stay in use until it is fixed.
 */
function upstreamConnection(settings: ConnectionSettings, logger: Logger): UpstreamConnection {
  return new UpstreamConnection(settings, {
    onFileError: (reason) => {
      if (reason)
        logger.error({ err: reason }, 'upstream TLS file unusable; still using the last good files');
      else logger.info('upstream TLS files usable again; new connections use them');
    },
  });
}
