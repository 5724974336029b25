/**
 * Assembles an exporter from a validated config: client, limiter, self-metrics, cache,
 * scheduler and HTTP app. Shared by the command line and the end-to-end tests, so that both
 * run exactly the same wiring.
 */
import { readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { DISCOVERY, enabledDataCollectors } from '../collectors/index.ts';
import { displayUrl } from '../config/describe.ts';
import { assertLoaded } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { createTokenProvider } from '../config/token.ts';
import { ExpositionCache } from '../exposition/cache.ts';
import { createSelfMetrics, type SelfMetrics } from '../exposition/selfmetrics.ts';
import { ActivityBoard } from '../scheduler/activity.ts';
import { countsOf, planFor, shardRequestRate } from '../scheduler/budget.ts';
import type { LoopTimers } from '../scheduler/loop.ts';
import { createPlanMetrics } from '../scheduler/plan-metrics.ts';
import { createScheduler, type Scheduler } from '../scheduler/scheduler.ts';
import { SeriesBudget } from '../scheduler/series-budget.ts';
import { type Shard, UNSHARDED } from '../scheduler/shard.ts';
import { createApp, type ReloadResult } from '../server/app.ts';
import { createClient, type UpstreamClient } from '../upstream/client.ts';
import { ENDPOINT_NAMES } from '../upstream/endpoints.ts';
import { jwtExpiry } from '../upstream/jwt.ts';
import { createLimiter, type Timers as LimiterTimers } from '../upstream/limiter.ts';
import { createTurns } from '../util/turns.ts';

/** The package version, read once from package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Optional injections, mostly for tests. */
export interface WireOptions {
  readonly logger?: Logger;
  /** Wall clock, epoch ms: window ends, data ages. */
  readonly wallClock?: () => number;
  readonly dispatcher?: Dispatcher;
  readonly timers?: LoopTimers;
  readonly random?: () => number;
  readonly registry?: Registry;
  /** Handler of POST /-/reload; without it the route answers 404. */
  readonly reload?: () => Promise<ReloadResult>;
  /** This replica's shard, resolved from `--shard`, the config or the pod name; default the config's. */
  readonly shard?: Shard;
  /** Timers of the request limiter (the benchmark runs it on a simulated clock). */
  readonly limiterTimers?: LimiterTimers;
}

/** A wired exporter, not yet polling. */
export interface Exporter {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly scheduler: Scheduler;
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  readonly self: SelfMetrics;
  readonly app: ReturnType<typeof createApp>;
  readonly logger: Logger;
  /** Stops polling and closes upstream connections. */
  close(): Promise<void>;
}

/** Creates a logger writing JSON lines to stderr, so that stdout stays free for `once`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { app: 'station-exporter' } }, pino.destination(2));
}

/** Wires an exporter from a validated config. */
export function wireExporter(config: Config, opts: WireOptions = {}): Exporter {
  assertLoaded(config);
  const logger = opts.logger ?? createLogger(config.log.level);
  const registry = opts.registry ?? new Registry();
  const wallClock = opts.wallClock ?? Date.now;
  const turns = createTurns();
  const self = createSelfMetrics(registry, { version: VERSION, wallClock });
  const shard = opts.shard ?? config.sharding.shard ?? UNSHARDED;
  self.initEndpoints(ENDPOINT_NAMES);
  const client = createClient({
    baseUrl: config.upstream.baseUrl,
    token: trackedToken(config, self),
    timeoutMs: config.upstream.timeoutMs,
    dispatcher: opts.dispatcher,
    turns,
    limiter: createLimiter({
      concurrency: config.upstream.concurrency,
      // A replica's ceiling is its share of the upstream's: the replicas together stay within it.
      ratePerSecond: shardRequestRate(config, shard),
      timers: opts.limiterTimers,
    }),
    onRequest: (e) => self.observeRequest(e.endpoint, e.statusClass, e.seconds, e.bytes),
    onSkipped: (endpoint, reason, n) => {
      self.recordSkipped(endpoint, reason, n);
      logger.debug({ endpoint, reason, n }, 'upstream records skipped at the edge');
    },
  });
  const cache = new ExpositionCache({ turns });
  const scheduler = createScheduler({
    discovery: DISCOVERY,
    collectors: enabledDataCollectors(config),
    context: { config, client, logger, turns, shard, activity: new ActivityBoard() },
    cache,
    self,
    logger,
    wallClock,
    timers: opts.timers,
    random: opts.random,
    planner: (topology) => {
      const counts = countsOf(topology, config);
      return (now) => planFor(config, counts, shard, now);
    },
    planMetrics: createPlanMetrics(registry),
    seriesBudget: new SeriesBudget(config.planning.maxSeries),
  });
  const app = createApp({
    cache,
    registry,
    self,
    version: VERSION,
    status: () => scheduler.status(),
    ready: () => scheduler.ready(),
    upstream: displayUrl(config.upstream.baseUrl),
    wallClock,
    reload: opts.reload,
  });
  return {
    config,
    client,
    scheduler,
    cache,
    registry,
    self,
    app,
    logger,
    async close() {
      await scheduler.stop();
      await client.close();
    },
  };
}

/** The token provider, reporting each new token's expiry to the self-metrics. */
function trackedToken(config: Config, self: SelfMetrics): () => Promise<string> {
  const tokens = createTokenProvider(config.upstream.token);
  let lastToken: string | undefined;
  return async () => {
    const t = await tokens.get();
    if (t !== lastToken) {
      lastToken = t;
      self.setTokenExpiry(jwtExpiry(t));
    }
    return t;
  };
}
